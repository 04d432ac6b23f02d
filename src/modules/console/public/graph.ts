// An execution's nodes as a graph: columns by depth along depends_on, each node coloured by its
// state, edges from prerequisites; with a list of the same states for screen readers.
import { h } from './views.ts';

export interface GraphNode {
  id: string;
  type: string;
  depends_on?: string[];
}

const W = 180;
const H = 44;
const GAP_X = 50;
const GAP_Y = 16;
const SVG = 'http://www.w3.org/2000/svg';

/** Depth of each node: 0 for nodes without prerequisites, else one more than the deepest prerequisite. */
function depths(nodes: GraphNode[]): Map<string, number> {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const depth = new Map<string, number>();
  const visit = (id: string, seen: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (seen.has(id)) return 0; // a cycle (refused by validation anyway): stop here
    seen.add(id);
    const deps = (byId.get(id)?.depends_on ?? []).filter((d) => byId.has(d));
    const d = deps.length === 0 ? 0 : 1 + Math.max(...deps.map((x) => visit(x, seen)));
    depth.set(id, d);
    return d;
  };
  for (const n of nodes) visit(n.id, new Set());
  return depth;
}

function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

/** The graph (scrolls sideways in its own box on narrow screens) and a list of node states. */
export function executionGraph(nodes: GraphNode[], stateOf: (id: string) => string): HTMLElement {
  const depth = depths(nodes);
  const rows = new Map<number, number>();
  const place = new Map<string, { x: number; y: number }>();
  for (const n of nodes) {
    const col = depth.get(n.id) ?? 0;
    const row = rows.get(col) ?? 0;
    rows.set(col, row + 1);
    place.set(n.id, { x: 8 + col * (W + GAP_X), y: 8 + row * (H + GAP_Y) });
  }
  const width = 16 + (Math.max(0, ...depth.values()) + 1) * (W + GAP_X) - GAP_X;
  const height = 16 + Math.max(1, ...rows.values()) * (H + GAP_Y) - GAP_Y;
  const root = svg('svg', {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: 'img',
    'aria-label': 'Workflow graph',
  });
  for (const n of nodes) {
    const to = place.get(n.id) as { x: number; y: number };
    for (const dep of n.depends_on ?? []) {
      const from = place.get(dep);
      if (from)
        root.append(svg('line', { x1: from.x + W, y1: from.y + H / 2, x2: to.x, y2: to.y + H / 2, class: 'edge' }));
    }
  }
  for (const n of nodes) {
    const at = place.get(n.id) as { x: number; y: number };
    const state = stateOf(n.id);
    const g = svg('g', { class: `node state-${state}`, transform: `translate(${at.x} ${at.y})` });
    g.append(
      svg('rect', { width: W, height: H, rx: 6 }),
      svg('text', { x: 8, y: 18 }, n.id.slice(0, 20)),
      svg('text', { x: 8, y: 36, class: 'sub' }, `${n.type.slice(0, 14)} · ${state}`),
    );
    root.append(g);
  }
  const list = h('ul', { class: 'sr' }, ...nodes.map((n) => h('li', {}, `${n.id} (${n.type}): ${stateOf(n.id)}`)));
  return h('div', { class: 'graph', tabindex: 0, role: 'group', 'aria-label': 'Node states' }, root, list);
}
