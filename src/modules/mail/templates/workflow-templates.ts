import { formatTime, greeting, type MailTemplate, tenantOf } from './template.ts';

/** A human task as its mail shows it. */
export interface TaskMail {
  taskId: string;
  title: string;
  description: string;
  /** `Workflow "Invoice approval"`, or the module that made the task. */
  owner: string;
  dueAt: number;
}

export interface WorkflowFailedMail {
  workflowName: string;
  executionId: string;
  failedNodeId: string | null;
  error: string;
}

/** A workflow `notification` node's own subject and message. */
export interface WorkflowNotificationMail {
  subject: string;
  message: string;
}

function taskTemplate(
  subject: (t: TaskMail) => string,
  lead: (t: TaskMail, tenant: string) => string,
): MailTemplate<TaskMail> {
  return {
    category: 'notification',
    render: (d, c) => ({
      subject: subject(d),
      greeting: greeting(c),
      paragraphs: [lead(d, tenantOf(c)), ...(d.description && d.description !== d.title ? [d.description] : [])],
      action: { label: 'Open your tasks', url: c.links.tasks() },
      details: [
        ['Task', d.title],
        ['From', d.owner],
        ['Due', formatTime(d.dueAt)],
        ['Task id', d.taskId],
      ],
    }),
  };
}

export const taskAssigned = taskTemplate(
  (t) => `New task: ${t.title}`,
  (t, tenant) => `${t.owner} on ${tenant} has a task for you, due ${formatTime(t.dueAt)}.`,
);

export const taskEscalated = taskTemplate(
  (t) => `Task escalated: ${t.title}`,
  (t, tenant) =>
    `A task of ${t.owner} on ${tenant} was escalated to you: it is still open and due ${formatTime(t.dueAt)}.`,
);

export const taskExpiring = taskTemplate(
  (t) => `Task due soon: ${t.title}`,
  (t, tenant) =>
    `A task of ${t.owner} on ${tenant} is still open and expires ${formatTime(t.dueAt)}. Decide it before then.`,
);

export const workflowFailed: MailTemplate<WorkflowFailedMail> = {
  category: 'notification',
  render: (d, c) => ({
    subject: `Workflow "${d.workflowName}" failed`,
    greeting: greeting(c),
    paragraphs: [
      `Execution ${d.executionId} of workflow "${d.workflowName}" on ${tenantOf(c)} failed${d.failedNodeId ? ` at node "${d.failedNodeId}"` : ''}: ${d.error}`,
    ],
    action: { label: 'See the execution', url: c.links.execution(d.executionId) },
  }),
};

export const workflowNotification: MailTemplate<WorkflowNotificationMail> = {
  category: 'notification',
  render: (d, c) => ({
    subject: d.subject,
    greeting: greeting(c),
    paragraphs: [`A workflow of ${tenantOf(c)} sends this message:`],
    verbatim: d.message,
  }),
};
