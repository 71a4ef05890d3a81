import { Type } from '@sinclair/typebox';
import { LIMITS } from '../../limits.ts';
import { defineCommand } from '../define.ts';

export default defineCommand({
  name: 'send_message',
  category: 'bus',
  description: 'Send a message to one agent, or to every other agent with to "*" (needs send_broadcast).',
  args: Type.Object(
    {
      to: Type.String({ minLength: 1, maxLength: LIMITS.idMaxLength, description: 'an agent id, or "*" for everyone else' }),
      content: Type.String({ maxLength: LIMITS.messageMaxBytes, description: 'at most 4 KiB (UTF-8)' }),
      kind: Type.Optional(Type.String({ minLength: 1, maxLength: 32, default: 'text' })),
    },
    { additionalProperties: false },
  ),
  result: Type.Object({ seq: Type.Integer(), recipients: Type.Array(Type.String()), broadcast: Type.Boolean() }),
  permission: { all: ['send_message'] },
  binds: [],
  runsOnGameThread: false,
  // A bus command, but it changes the inboxes: a retry must not send twice.
  keepsAnswer: true,
  pool: (env) => env.session('send', env.args),
});
