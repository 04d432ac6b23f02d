import { Type } from 'typebox';
import { Nullable, Paged, PageQuery, Timestamp } from '../../../http/common-schemas.ts';

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const Description = Nullable(Type.String({ maxLength: 2000 }));

export const WorkspaceView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  created_by: Nullable(Type.String()),
  member_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MemberView = Type.Object({
  user_id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  role: Type.String(),
  added_at: Timestamp,
});

export const WorkspaceDetail = Type.Object({ ...WorkspaceView.properties, members: Type.Array(MemberView) });
export const MemberList = Type.Object({ workspace_id: Type.String(), members: Type.Array(MemberView) });

export const CreateWorkspaceBody = Type.Object(
  { name: Name, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export const UpdateWorkspaceBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
export const AddMemberBody = Type.Object(
  { user_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const MemberParams = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 128 }), user_id: Type.String({ minLength: 1, maxLength: 128 }) },
  { additionalProperties: false },
);
export const WorkspaceListQuery = Type.Object(
  {
    ...PageQuery,
    member_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'Only workspaces this user belongs to.' }),
    ),
  },
  { additionalProperties: false },
);
export const WorkspaceList = Paged(WorkspaceView);
