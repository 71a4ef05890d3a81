import { Type } from '@sinclair/typebox';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'recv_messages',
  category: 'bus',
  description: 'Read your inbox from a cursor: messages with seq > since_seq, oldest first. Reading removes nothing.',
  args: Type.Object(
    {
      since_seq: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
      max: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({
    items: Type.Array(
      Type.Object({ seq: Type.Integer(), from: Type.String(), to: Type.String(), kind: Type.String(), content: Type.String(), sent_utc: Type.String() }),
    ),
    count: Type.Integer(),
    next_cursor: Type.Integer(),
  }),
  permission: { all: ['recv_message'] },
  binds: [],
  runsOnGameThread: false,
  pool: (env) => env.session('recv', env.args),
});
