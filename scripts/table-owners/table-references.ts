import { stripTypeScriptTypes } from 'node:module';
import { type Expression, parse, type SpreadElement } from 'acorn';
import { simple } from 'acorn-walk';

/** A table named by a query in a source file. */
export interface TableReference {
  table: string;
  line: number;
}

/** Kysely builder methods whose first argument names a table (`'t'`, `'t as x'` or an array of them). */
const TABLE_METHODS = new Set([
  'selectFrom',
  'insertInto',
  'replaceInto',
  'updateTable',
  'deleteFrom',
  'mergeInto',
  'using',
  'innerJoin',
  'leftJoin',
  'rightJoin',
  'fullJoin',
  'table', // sql.table('t')
]);

/** Raw SQL: a table follows one of these keywords (quoted or not). */
const RAW_TABLE = /\b(?:from|join|update|into|using)\s+"?([A-Za-z_][A-Za-z0-9_]*)/gi;

/**
 * Every table a TypeScript source names through Kysely (`selectFrom('t')`, `innerJoin('t as x', ...)`,
 * `sql.table('t')`...) or in raw SQL (`sql\`... from t ...\``, `sql.raw('...')`). Names that are not
 * tables (aliases, CTEs, functions) come back too; the caller keeps the ones it knows.
 */
export function tableReferences(source: string): TableReference[] {
  // Erasing the types keeps every offset, so positions are the source's.
  const js = stripTypeScriptTypes(source, { mode: 'strip' });
  const tree = parse(js, { ecmaVersion: 'latest', sourceType: 'module' });
  const found: Array<{ table: string; at: number }> = [];

  const named = (value: string, at: number) => {
    const table = value.trim().split(/\s+/)[0];
    if (table) found.push({ table, at });
  };
  const rawSql = (text: string, at: number) => {
    for (const match of text.matchAll(RAW_TABLE)) {
      const table = match[1]!;
      found.push({ table, at: at + match.index + match[0].length - table.length });
    }
  };

  simple(tree, {
    CallExpression(call) {
      if (call.callee.type !== 'MemberExpression' || call.callee.property.type !== 'Identifier') return;
      const method = call.callee.property.name;
      const read = method === 'raw' ? rawSql : TABLE_METHODS.has(method) ? named : undefined;
      if (!read) return;
      for (const { value, at } of literalStrings(call.arguments[0])) read(value, at);
    },
    TaggedTemplateExpression(tagged) {
      if (tagged.tag.type !== 'Identifier' || tagged.tag.name !== 'sql') return;
      for (const quasi of tagged.quasi.quasis) rawSql(quasi.value.raw, quasi.start);
    },
  });

  const lineOf = lineIndex(source);
  return found.sort((a, b) => a.at - b.at).map(({ table, at }) => ({ table, line: lineOf(at) }));
}

/** The constant strings of an argument: a string, a template without substitutions, or an array of them. */
function literalStrings(node: Expression | SpreadElement | null | undefined): Array<{ value: string; at: number }> {
  if (!node) return [];
  if (node.type === 'Literal') return typeof node.value === 'string' ? [{ value: node.value, at: node.start + 1 }] : [];
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
    const quasi = node.quasis[0]!;
    return [{ value: quasi.value.raw, at: quasi.start }];
  }
  if (node.type === 'ArrayExpression') return node.elements.flatMap((element) => literalStrings(element));
  return [];
}

/** Offset to 1-based line number. */
function lineIndex(source: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}
