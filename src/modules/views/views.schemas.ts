import { Type } from 'typebox';
import { Nullable, Timestamp } from '../../http/common-schemas.ts';
import { MAX_FILTER_VALUE, MAX_FILTERS } from './saved-views.service.ts';

const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'The name rule of folders and documents (docs/api-decisions.md "Names"); unique per person.',
});
const FolderId = Nullable(
  Type.String({ minLength: 1, maxLength: 128, description: 'The folder shown; null for the root.' }),
);
const Filters = Type.Record(Type.String(), Type.String({ maxLength: MAX_FILTER_VALUE }), {
  maxProperties: MAX_FILTERS,
  description:
    'The documents page query kept with the view, as the console writes it in its address (`sort`, `type`, `from`, `to`, `view`...): keys of lower-case letters, digits and `_`; the service stores them as given.',
});

/** `POST /saved-views`. */
export const CreateViewBody = Type.Object(
  { name: Name, folder_id: Type.Optional(FolderId), filters: Type.Optional(Filters) },
  { additionalProperties: false },
);

/** `PATCH /saved-views/{id}`: what is given changes. */
export const UpdateViewBody = Type.Object(
  { name: Type.Optional(Name), folder_id: Type.Optional(FolderId), filters: Type.Optional(Filters) },
  { additionalProperties: false, minProperties: 1 },
);

/** A saved view as the API shows it. */
export const SavedViewView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  folder_id: Nullable(Type.String()),
  filters: Type.Record(Type.String(), Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
