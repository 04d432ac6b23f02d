import { parseArgs } from 'node:util';
import { clientFor } from '../config.ts';
import { EXIT, type Io, output, table, UsageError } from '../io.ts';

// The human-task inbox (/dag/tasks, Team tier). Called by path rather than by operationId so the
// CLI works against services whose SDK types predate the inbox.
interface Task {
  id: string;
  title: string;
  status?: string;
  workflow_name?: string;
  due_at?: string;
}

/** tasks [list] | approve <id> | reject <id> [--comment text] */
export async function tasksCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      status: { type: 'string', default: 'pending' },
      assignee: { type: 'string' },
      comment: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const [action = 'list', id] = positionals;
  const client = await clientFor(io);
  if (action === 'list') {
    const answer = await client.request<{ data: Task[]; total: number }>('GET', '/api/v1/dag/tasks', {
      query: { status: values.status, assignee: values.assignee },
    });
    output(io, values.json ?? false, answer, () =>
      answer.data.length
        ? table(answer.data.map((t) => [t.id, t.status ?? '', t.workflow_name ?? '', t.title, t.due_at ?? '']))
        : 'no tasks',
    );
    return EXIT.ok;
  }
  if (action !== 'approve' && action !== 'reject') throw new UsageError(`unknown tasks action "${action}"`);
  if (!id) throw new UsageError(`tasks ${action} needs a task id`);
  const decision = action === 'approve' ? 'approved' : 'rejected';
  const answer = await client.request<{ status: string; execution_status?: string }>(
    'POST',
    `/api/v1/dag/tasks/${encodeURIComponent(id)}/complete`,
    {
      body: { decision, ...(values.comment ? { comments: values.comment } : {}) },
    },
  );
  output(
    io,
    values.json ?? false,
    answer,
    () => `task ${id} ${decision}${answer.execution_status ? `; execution ${answer.execution_status}` : ''}`,
  );
  return EXIT.ok;
}
