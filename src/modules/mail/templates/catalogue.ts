import {
  type EmailChangedMail,
  emailChanged,
  invitation,
  type PasswordTokenMail,
  passwordReset,
  type SubscriptionChangedMail,
  subscriptionChanged,
  type UsageThresholdMail,
  usageThreshold,
} from './account-templates.ts';
import { type MigrationFinishedMail, migrationFinished } from './storage-templates.ts';
import type { MailTemplate } from './template.ts';
import {
  type TaskMail,
  taskAssigned,
  taskEscalated,
  taskExpiring,
  type WorkflowFailedMail,
  type WorkflowNotificationMail,
  workflowFailed,
  workflowNotification,
} from './workflow-templates.ts';

/** Every kind of mail the service writes, with the data its template needs. */
export interface MailData {
  invitation: PasswordTokenMail;
  password_reset: PasswordTokenMail;
  email_changed: EmailChangedMail;
  task_assigned: TaskMail;
  task_escalated: TaskMail;
  task_expiring: TaskMail;
  workflow_failed: WorkflowFailedMail;
  workflow_notification: WorkflowNotificationMail;
  storage_migration_completed: MigrationFinishedMail;
  subscription_changed: SubscriptionChangedMail;
  usage_threshold: UsageThresholdMail;
}

export type MailKind = keyof MailData;

/** The template of each kind (docs/mail.md lists them with their category). */
export const MAIL_TEMPLATES: { [K in MailKind]: MailTemplate<MailData[K]> } = {
  invitation,
  password_reset: passwordReset,
  email_changed: emailChanged,
  task_assigned: taskAssigned,
  task_escalated: taskEscalated,
  task_expiring: taskExpiring,
  workflow_failed: workflowFailed,
  workflow_notification: workflowNotification,
  storage_migration_completed: migrationFinished,
  subscription_changed: subscriptionChanged,
  usage_threshold: usageThreshold,
};

export const MAIL_KINDS = Object.keys(MAIL_TEMPLATES) as MailKind[];
