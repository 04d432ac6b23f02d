// The workflow's DAG drawn as focusable step boxes over SVG edges: where each step's `position`
// says (kept in the definition), else in columns by `depends_on` depth. The editor uses it with
// connecting (drag from a step's right edge, or C then Enter) and moving (drag a step, or Shift with
// an arrow key); the execution page with each step's state.
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

/** How far Shift with an arrow key moves a step. */
const STEP = 16;

/** Where a new step goes when the steps have positions: to the right of the one it runs after, else right of all. */
export function placeNew(nodes: WfNode[], after: string | null): Placed | undefined {
  const placed = nodes.filter((n) => n.position);
  if (placed.length === 0) return undefined;
  const parent = nodes.find((n) => n.id === after)?.position;
  if (parent) return { x: parent.x + W + GAP_X, y: parent.y };
  return { x: Math.max(...placed.map((n) => n.position!.x)) + W + GAP_X, y: PAD };
}

/**
 * Each step where its `position` says; the others in columns by the longest chain of `depends_on`
 * before them (cycles cut), rows in definition order. Shifted so that nothing lies above or left of
 * the padding. `vertical` (narrow screens) ignores the positions, which were laid out for a wide
 * canvas: rows by depth, top to bottom.
 */
export function layout(nodes: WfNode[], vertical = false): { at: Map<string, Placed>; width: number; height: number } {
  const auto = depthLayout(nodes, vertical);
  const at = new Map<string, Placed>();
  for (const n of nodes) {
    const p = (!vertical && n.position) || auto.get(n.id)!;
    at.set(n.id, { x: p.x, y: p.y });
  }
  const all = [...at.values()];
  const dx = Math.min(PAD, ...all.map((p) => p.x)) - PAD;
  const dy = Math.min(PAD, ...all.map((p) => p.y)) - PAD;
  for (const p of all) {
    p.x -= dx;
    p.y -= dy;
  }
  const width = Math.max(PAD * 2 + W, ...all.map((p) => p.x + W + PAD));
  const height = Math.max(PAD * 2 + H, ...all.map((p) => p.y + H + PAD));
  return { at, width, height };
}

function depthLayout(nodes: WfNode[], vertical: boolean): Map<string, Placed> {
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
  return at;
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
  /** Moving: the step's new position, and where every step is drawn now (for those without a position yet). */
  onMove?: (id: string, to: Placed, drawn: Map<string, Placed>) => void;
}

export function Graph(p: GraphProps) {
  const vertical = useNarrow();
  const { at, width, height } = layout(p.nodes, vertical);
  const box = useRef<HTMLDivElement>(null);
  const [drag, setDrag] = useState<{ from: string; x: number; y: number } | null>(null);
  // A step being moved: where the pointer took it, from where, and whether it has moved yet.
  const [moving, setMoving] = useState<{
    id: string;
    dx: number;
    dy: number;
    x: number;
    y: number;
    moved: boolean;
  } | null>(null);
  const moved = useRef(false);
  const editing = Boolean(p.onConnect);
  // Steps are moved on a wide canvas only: a narrow one draws its own layout (above).
  const onMove = vertical ? undefined : p.onMove;
  if (moving?.moved) at.set(moving.id, { x: moving.x, y: moving.y });
  const stored = (q: Placed): Placed => ({ x: Math.round(q.x), y: Math.round(q.y) });
  const drawn = () => new Map([...at].map(([id, q]) => [id, stored(q)]));
  const startMove = (id: string, e: PointerEvent) => {
    if (!onMove || e.button !== 0 || p.connectFrom) return;
    // Captured, so that the move goes on when the pointer leaves the canvas.
    (e.currentTarget as Element).setPointerCapture?.(e.pointerId);
    const q = point(e);
    const pos = at.get(id)!;
    setMoving({ id, dx: q.x - pos.x, dy: q.y - pos.y, x: pos.x, y: pos.y, moved: false });
  };
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
    else if (moving) {
      const q = point(e);
      const x = Math.max(0, q.x - moving.dx);
      const y = Math.max(0, q.y - moving.dy);
      const far = Math.abs(x - moving.x) + Math.abs(y - moving.y) > 4;
      if (moving.moved || far) setMoving({ ...moving, x, y, moved: true });
    }
  };
  const endDrag = (e: PointerEvent) => {
    if (moving) {
      if (moving.moved) {
        // The click that follows the pointer's release is the end of the move, not a selection.
        moved.current = true;
        onMove?.(moving.id, stored({ x: moving.x, y: moving.y }), drawn());
      }
      setMoving(null);
      return;
    }
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
    } else if (e.shiftKey && onMove && e.key.startsWith('Arrow')) {
      e.preventDefault();
      const pos = at.get(id)!;
      const by = { ArrowRight: [STEP, 0], ArrowLeft: [-STEP, 0], ArrowDown: [0, STEP], ArrowUp: [0, -STEP] }[e.key];
      if (by) onMove(id, stored({ x: Math.max(0, pos.x + by[0]!), y: Math.max(0, pos.y + by[1]!) }), drawn());
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
    if (moved.current) {
      moved.current = false;
      return;
    }
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
          class: `dag-node${state ? ` s-${state}` : ''}${problems.length ? ' invalid' : ''}${p.selected === n.id ? ' selected' : ''}${p.connectFrom === n.id ? ' source' : ''}${moving?.moved && moving.id === n.id ? ' moving' : ''}`,
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
            onPointerDown: onMove ? (e: PointerEvent) => startMove(n.id, e) : undefined,
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
