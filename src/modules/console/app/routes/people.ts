// The people a share can name, for the document page and the documents view's bulk share.
import { useEffect, useState } from 'preact/hooks';
import { client, type OperationResponse } from '../sdk.ts';

export type Person = OperationResponse<'listUsers'>['data'][number];

/**
 * The tenant's users (first 100), for those who may list them; an empty list for the others, who
 * can still see and remove shares but not pick a new person.
 */
export function useListedUsers(): Person[] {
  const [users, setUsers] = useState<Person[]>([]);
  useEffect(
    () =>
      void client()
        .call('listUsers', { query: { page_size: 100 } })
        .then(
          (a) => setUsers(a.data),
          () => undefined,
        ),
    [],
  );
  return users;
}
