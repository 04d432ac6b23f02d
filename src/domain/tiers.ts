/** Subscription tiers and everything docs/api-decisions.md (§5) and spec (Limits) tie to them. */
export const TIERS = ['free', 'starter', 'pro', 'team', 'enterprise'] as const;
export type Tier = (typeof TIERS)[number];

export const TENANT_STATUSES = ['active', 'suspended'] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

export const GB = 1024 ** 3;

interface TierLimits {
  /** Tier-wide requests per minute; null = unlimited. */
  requestsPerMinute: number | null;
  /** Requests per minute by endpoint type; null = unlimited. */
  endpointTypes: Record<EndpointType, number | null>;
  /** Workflow endpoint categories (`/dag/*`); null = not available / unlimited per `workflows` feature. */
  workflowCategories: Record<WorkflowCategory, number | null>;
  storageBytes: number | null;
  aiCreditsPerMonth: number | null;
  features: { workflows: boolean; importProjects: boolean; enhancedSearch: boolean; videoTranscription: boolean };
}

export const ENDPOINT_TYPES = [
  'authentication',
  'document_upload',
  'ai_processing',
  'chat',
  'search',
  'general',
] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

export const WORKFLOW_CATEGORIES = [
  'workflow_crud',
  'workflow_execute',
  'execution_status',
  'task_operations',
] as const;
export type WorkflowCategory = (typeof WORKFLOW_CATEGORIES)[number];

const noWorkflows = { workflow_crud: null, workflow_execute: null, execution_status: null, task_operations: null };

export const TIER_LIMITS: Record<Tier, TierLimits> = {
  free: {
    requestsPerMinute: 15,
    endpointTypes: { authentication: 10, document_upload: 10, ai_processing: 5, chat: 10, search: 20, general: 15 },
    workflowCategories: noWorkflows,
    storageBytes: 1 * GB,
    aiCreditsPerMonth: 100,
    features: { workflows: false, importProjects: false, enhancedSearch: false, videoTranscription: false },
  },
  starter: {
    requestsPerMinute: 30,
    endpointTypes: { authentication: 20, document_upload: 20, ai_processing: 15, chat: 25, search: 50, general: 30 },
    workflowCategories: noWorkflows,
    storageBytes: 10 * GB,
    aiCreditsPerMonth: 1_000,
    features: { workflows: false, importProjects: false, enhancedSearch: false, videoTranscription: false },
  },
  pro: {
    requestsPerMinute: 120,
    endpointTypes: { authentication: 75, document_upload: 30, ai_processing: 20, chat: 50, search: 100, general: 120 },
    workflowCategories: noWorkflows,
    storageBytes: 100 * GB,
    aiCreditsPerMonth: 10_000,
    features: { workflows: false, importProjects: false, enhancedSearch: true, videoTranscription: true },
  },
  team: {
    requestsPerMinute: 300,
    endpointTypes: {
      authentication: 150,
      document_upload: 50,
      ai_processing: 50,
      chat: 100,
      search: 200,
      general: 300,
    },
    workflowCategories: { workflow_crud: 60, workflow_execute: 30, execution_status: 120, task_operations: 60 },
    storageBytes: 1024 * GB,
    aiCreditsPerMonth: 50_000,
    features: { workflows: true, importProjects: true, enhancedSearch: true, videoTranscription: true },
  },
  enterprise: {
    requestsPerMinute: null,
    endpointTypes: {
      authentication: null,
      document_upload: null,
      ai_processing: null,
      chat: null,
      search: null,
      general: null,
    },
    workflowCategories: { workflow_crud: 300, workflow_execute: 150, execution_status: 600, task_operations: 300 },
    storageBytes: null,
    aiCreditsPerMonth: null,
    features: { workflows: true, importProjects: true, enhancedSearch: true, videoTranscription: true },
  },
};

/** The lowest tier that has a feature, for `required_tier` in tier_limit_exceeded answers. */
export function lowestTierWith(feature: keyof TierLimits['features']): Tier {
  return TIERS.find((t) => TIER_LIMITS[t].features[feature]) ?? 'enterprise';
}
