import type { Updateable } from 'kysely';

type Column<Table> = keyof Updateable<Table> & string;

/** The columns of `Table` that can hold a value of type `V` as it is. */
type ColumnsTaking<V, Table> = {
  [C in Column<Table>]-?: [V] extends [Updateable<Table>[C]] ? C : never;
}[Column<Table>];

/** A column, and how a value is stored in it (JSON text, a 0/1 flag...). */
type EncodedColumn<V, Table> = {
  [C in Column<Table>]-?: readonly [C, (value: V) => Updateable<Table>[C]];
}[Column<Table>];

/**
 * How each field of a domain object is stored (the inverse of the repository's `toX(row)`): its
 * column when the value goes in as it is; `[column, encode]` when it is stored otherwise; or a
 * function giving several columns (a name and its lookup key). Every field must be listed and each
 * value must fit its column, so a field added to the type and forgotten here, or stored in a column
 * of another type, fails to compile instead of being silently dropped or garbled on writes.
 */
export type ColumnMap<T, Table> = {
  [K in keyof T]-?: ColumnsTaking<T[K], Table> | EncodedColumn<T[K], Table> | ((value: T[K]) => Updateable<Table>);
};

type AnyColumn = string | readonly [string, (value: unknown) => unknown] | ((value: unknown) => object);

/**
 * The columns of the fields given (undefined ones are left out): an update's SET, or a whole row.
 * Plain columns and encoded ones cost no object each: a scan writes this for every file it finds.
 */
export function columnsOf<T, Table>(map: ColumnMap<T, Table>, fields: Partial<T>): Updateable<Table> {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) {
    const value = fields[key];
    if (value === undefined) continue;
    const column = map[key] as AnyColumn;
    if (typeof column === 'string') values[column] = value;
    else if (typeof column === 'function') Object.assign(values, column(value));
    else values[column[0]] = column[1](value);
  }
  return values as Updateable<Table>;
}
