// The workflow's DAG drawn as focusable step boxes over SVG edges, columns by `depends_on` depth.
// The editor uses it with connecting (drag from a step's right edge, or C then Enter); the
// execution page with each step's state.
import { useEffect, useRef, useState } from 'preact/hooks';
import { h } from '../ui.ts';
import { kindLabel, type WfNode } from './workflow-nodes.ts';
import { tw, word } from './workflows-i18n.ts';

const W = 168;
const H = 56;
const GAP_X = 64;
const GAP_Y = 24;
const PAD = 16;

export interface Placed {
  x: number;
  y: number;
}

/**
 * Columns by the longest chain of `depends_on` before each node (cycles cut), rows in definition
 * order; `vertical` (narrow screens) turns it a quarter: rows by depth, top to bottom.
 */
export function layout(nodes: WfNode[], vertical = false): { at: Map<string, Placed>; width: number; height: number } {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map<string, number>();
  const visiting = new Set<string>();
  const depthOf = (id: string): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return 0;
    visiting.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const d = deps.length ? Math.max(...deps.map(depthOf)) + 1 : 0;
    visiting.delete(id);
    depth.set(id, d);
    return d;
  };
  const rows: number[] = [];
  const at = new Map<string, Placed>();
  for (const n of nodes) {
    const col = depthOf(n.id);
    const row = rows[col] ?? 0;
    rows[col] = row + 1;
    at.set(
      n.id,
      vertical
        ? { x: PAD + row * (W + GAP_Y), y: PAD + col * (H + GAP_X) }
        : { x: PAD + col * (W + GAP_X), y: PAD + row * (H + GAP_Y) },
    );
  }
  const levels = rows.length || 1;
  const across = Math.max(1, ...rows.map((r) => r ?? 0));
  const along = (count: number, size: number, gap: number) => PAD * 2 + count * size + (count - 1) * gap;
  return vertical
    ? { at, width: along(across, W, GAP_Y), height: along(levels, H, GAP_X) }
    : { at, width: along(levels, W, GAP_X), height: along(across, H, GAP_Y) };
}

/** Where an edge leaves a node (right edge, or bottom when vertical) and enters one (left, or top). */
function exitOf(a: Placed, vertical: boolean) {
  return vertical ? { x: a.x + W / 2, y: a.y + H } : { x: a.x + W, y: a.y + H / 2 };
}
function entryOf(a: Placed, vertical: boolean) {
  return vertical ? { x: a.x + W / 2, y: a.y } : { x: a.x, y: a.y + H / 2 };
}

function edgePath(from: { x: number; y: number }, to: { x: number; y: number }, vertical: boolean): string {
  if (vertical) {
    const mid = Math.max(20, (to.y - from.y) / 2);
    return `M${from.x},${from.y} C${from.x},${from.y + mid} ${to.x},${to.y - mid} ${to.x},${to.y}`;
  }
  const mid = Math.max(24, (to.x - from.x) / 2);
  return `M${from.x},${from.y} C${from.x + mid},${from.y} ${to.x - mid},${to.y} ${to.x},${to.y}`;
}

const NARROW = '(max-width: 760px)';
/** Whether the screen is narrow (the graph then runs top to bottom). */
function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const on = () => setNarrow(query.matches);
    query.addEventListener('change', on);
    return () => query.removeEventListener('change', on);
  }, []);
  return narrow;
}

export interface GraphProps {
  nodes: WfNode[];
  label: string;
  selected?: string | null;
  onSelect?: (id: string) => void;
  /** Execution states by node id (read-only graph). */
  states?: Record<string, string>;
  /** Problems by node id (the editor). */
  problems?: Record<string, string[]>;
  /** Editing: connect `from` → `to` (to runs after from), remove a node. */
  onConnect?: (from: string, to: string) => void;
  onRemove?: (id: string) => void;
  connectFrom?: string | null;
  setConnectFrom?: (id: string | null) => void;
  onDropKind?: (type: string) => void;
}

export function Graph(p: GraphProps) {
  const vertical = useNarrow();
  const { at, width, height } = layout(p.nodes, vertical);
  const box = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ from: string; x: number; y: number } | null>(null);
  const editing = Boolean(p.onConnect);
  const point = (e: PointerEvent) => {
    const r = box.current!.getBoundingClientRect();
    return { x: e.clientX - r.left + box.current!.scrollLeft, y: e.clientY - r.top + box.current!.scrollTop };
  };
  const startDrag = (id: string, e: PointerEvent) => {
    e.preventDefault();
    e.stopPropagation();
    (e.currentTarget as Element).setPointerCapture?.(e.pointerId);
    setDrag({ from: id, ...point(e) });
  };
  const moveDrag = (e: PointerEvent) => {
    if (drag) setDrag({ ...drag, ...point(e) });
  };
  const endDrag = (e: PointerEvent) => {
    if (!drag) return;
    const target = document.elementFromPoint(e.clientX, e.clientY)?.closest('[data-node-id]');
    const to = target?.getAttribute('data-node-id');
    setDrag(null);
    if (to) p.onConnect?.(drag.from, to);
  };
  const keyOn = (id: string, e: KeyboardEvent) => {
    if (!editing) return;
    if ((e.key === 'c' || e.key === 'C') && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      p.setConnectFrom?.(id);
    } else if (e.key === 'Escape' && p.connectFrom) {
      e.preventDefault();
      p.setConnectFrom?.(null);
    } else if ((e.key === 'Delete' || e.key === 'Backspace') && p.onRemove) {
      e.preventDefault();
      // Focus stays in the graph: on the step before the removed one (or the one after).
      const i = p.nodes.findIndex((n) => n.id === id);
      const near = p.nodes[i - 1] ?? p.nodes[i + 1];
      p.onRemove(id);
      if (near)
        setTimeout(() => box.current?.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(near.id)}"]`)?.focus());
    } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft' || e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      // Arrow keys walk the steps in definition order (Tab does too).
      const i = p.nodes.findIndex((n) => n.id === id);
      const next = p.nodes[i + (e.key === 'ArrowRight' || e.key === 'ArrowDown' ? 1 : -1)];
      if (next) {
        e.preventDefault();
        box.current?.querySelector<HTMLElement>(`[data-node-id="${CSS.escape(next.id)}"]`)?.focus();
      }
    }
  };
  const activate = (id: string) => {
    if (p.connectFrom && p.connectFrom !== id) {
      p.onConnect?.(p.connectFrom, id);
      p.setConnectFrom?.(null);
    } else p.onSelect?.(id);
  };
  const onDrop = (e: DragEvent) => {
    const type = e.dataTransfer?.getData('application/x-docuvault-node');
    if (type) {
      e.preventDefault();
      p.onDropKind?.(type);
    }
  };
  return h(
    'div',
    {
      class: `dag${p.connectFrom ? ' connecting' : ''}${vertical ? ' vertical' : ''}`,
      ref: box,
      role: 'group',
      'aria-label': p.label,
      onPointerMove: moveDrag,
      onPointerUp: endDrag,
      onDragOver: p.onDropKind ? (e: DragEvent) => e.preventDefault() : undefined,
      onDrop: p.onDropKind ? onDrop : undefined,
    },
    h(
      'svg',
      { width, height, class: 'dag-edges', 'aria-hidden': 'true', focusable: 'false' },
      h(
        'defs',
        {},
        h(
          'marker',
          { id: 'dag-arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' },
          h('path', { d: 'M0,0 L10,5 L0,10 z', class: 'dag-arrow' }),
        ),
      ),
      p.nodes.flatMap((n) =>
        (n.depends_on ?? [])
          .filter((d) => at.has(d))
          .map((d) => {
            const to = at.get(n.id)!;
            const state = p.states?.[d];
            return h('path', {
              key: `${d}>${n.id}`,
              class: `dag-edge${state === 'completed' ? ' done' : ''}`,
              d: edgePath(exitOf(at.get(d)!, vertical), entryOf(to, vertical), vertical),
              'marker-end': 'url(#dag-arrow)',
            });
          }),
      ),
      drag && at.has(drag.from)
        ? h('path', {
            class: 'dag-edge pending',
            d: edgePath(exitOf(at.get(drag.from)!, vertical), { x: drag.x, y: drag.y }, vertical),
          })
        : null,
    ),
    p.nodes.map((n) => {
      const pos = at.get(n.id)!;
      const state = p.states ? (p.states[n.id] ?? 'pending') : undefined;
      const problems = p.problems?.[n.id] ?? [];
      const type = kindLabel(n.type);
      const problemText = problems.length ? `, ${tw('wf.nodeProblems', { n: problems.length })}` : '';
      return h(
        'div',
        {
          key: n.id,
          class: `dag-node${state ? ` s-${state}` : ''}${problems.length ? ' invalid' : ''}${p.selected === n.id ? ' selected' : ''}${p.connectFrom === n.id ? ' source' : ''}`,
          style: { left: `${pos.x}px`, top: `${pos.y}px`, width: `${W}px`, height: `${H}px` },
        },
        h(
          'button',
          {
            type: 'button',
            class: 'dag-box',
            'data-node-id': n.id,
            'aria-pressed': p.onSelect ? (p.selected === n.id ? 'true' : 'false') : undefined,
            onClick: () => activate(n.id),
            onKeyDown: (e: KeyboardEvent) => keyOn(n.id, e),
          },
          // The name is the text shown (label in name): "approve, Approval: completed", ", 2 problems".
          h('span', { class: 'dag-id' }, n.id),
          h('span', { class: 'visually-hidden' }, ', '),
          h('span', { class: 'dag-type' }, type, state ? h('span', {}, `: ${word('state', state)}`) : null),
          problemText ? h('span', { class: 'visually-hidden' }, problemText) : null,
          problems.length ? h('span', { class: 'dag-flag', 'aria-hidden': 'true' }, String(problems.length)) : null,
        ),
        editing
          ? h('span', {
              class: 'dag-port',
              'data-port': n.id,
              'aria-hidden': 'true',
              title: tw('wf.connectFrom'),
              onPointerDown: (e: PointerEvent) => startDrag(n.id, e),
            })
          : null,
      );
    }),
    p.nodes.length === 0 && editing ? h('p', { class: 'muted dag-empty' }, tw('wf.empty')) : null,
    h('div', { style: { width: `${width}px`, height: `${height}px` }, 'aria-hidden': 'true' }),
  );
}
