import { Type } from 'typebox';
import { Timestamp } from '../../../http/common-schemas.ts';

/** A registered MCP server as the API shows it: header names, never their values. */
export const McpServerView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  headers: Type.Record(Type.String(), Type.String(), {
    description: 'The header names given at registration; values are stored encrypted and shown as `********`.',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const McpServerList = Type.Object({
  data: Type.Array(McpServerView),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
});

/** `POST /mcp/servers`. */
export const CreateMcpServerBody = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Unique per tenant, case-insensitive (409 `conflict`).',
    }),
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'The Streamable HTTP endpoint (absolute http or https URL; 400 `INVALID_URL` for a private or reserved address unless `ALLOW_PRIVATE_NETWORK_TARGETS=true`).',
    }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.String(), {
        description:
          'Sent on every request to the server (for example `Authorization`). At most 20; transport headers (`Content-Type`, `Accept`, `Mcp-Session-Id`, ...) are refused.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ToolView = Type.Object({
  name: Type.String(),
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  input_schema: Type.Object(
    {},
    {
      additionalProperties: true,
      description: "JSON Schema of the tool's arguments (`parameters` of an `mcp_tool` node).",
    },
  ),
  output_schema: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const McpToolList = Type.Object({ server_id: Type.String(), tools: Type.Array(ToolView) });
