import { type TSchema, Type } from 'typebox';

/** The contract's error body (docs/api-decisions.md §4). */
export const ErrorBody = Type.Object(
  {
    error: Type.String(),
    code: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { description: 'Every error answer: `code` is `error` in upper case.' },
);

export const IdParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);

export const MessageBody = Type.Object({ message: Type.String() });

/** `page` / `page_size` query of the contract's paged lists (docs/api-decisions.md §9). */
export const PageQuery = {
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1 })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
};

/** The paged envelope `{data, total, page, page_size}`. */
export function Paged<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    page: Type.Integer(),
    page_size: Type.Integer(),
  });
}

export function pageWindow(query: { page?: number; page_size?: number }): {
  page: number;
  pageSize: number;
  limit: number;
  offset: number;
} {
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? 20;
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
}

/** A timestamp field as the API shows it. */
export const Timestamp = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Error answers every route may give, for the OpenAPI document. */
export const standardErrors = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
