// Generated from the service's OpenAPI document by packages/sdk/scripts/generate-types.ts. Do not edit:
// run `node packages/sdk/scripts/generate-types.ts` (test/sdk/types-in-step.test.ts fails when this file is out of step).

export type ErrorBody = {
  error: string;
  code: string;
  message: string;
  details?: {
    [key: string]: unknown;
  };
};

/** Every operation of the API by operationId. */
export interface Operations {
  /** Turn a document's AI tags into tags */
  applyDocumentAiTags: {
    path: {
      id: string;
    };
    response: {
      message: string;
      tags_applied: string[];
    };
  };
  /** Ask a question in a chat session */
  askChatSession: {
    path: {
      id: string;
    };
    body: {
      message: string;
    };
    response: {
      id: string;
      session_id: string;
      role: "assistant";
      content: string;
      citations: {
        document_id: string;
        version?: number;
        text: string;
        page?: number;
        score: number;
      }[];
      created_at: string;
    };
  };
  /** Cancel a pending or in-progress migration */
  cancelAdminStorageMigration: {
    path: {
      migration_id: string;
    };
    body: {
      reason?: string;
    };
    response: {
      id: string;
      tenant_id: string;
      source_provider: string;
      target_provider: string;
      status: string;
      phase: string;
      total_files: number;
      migrated_files: number;
      failed_files: number;
      skipped_files: number;
      total_bytes: number;
      migrated_bytes: number;
      initiated_by_email: string | null;
      error: string | null;
      cancel_reason: string | null;
      created_at: string;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      source_purge_at: string | null;
      source_purged_at: string | null;
    };
  };
  /** Cancel an execution */
  cancelDagExecution: {
    path: {
      id: string;
    };
    body: {
      reason?: string;
    };
    response: {
      execution_id: string;
      status: string;
      cancelled_at: string;
      reason: string | null;
    };
  };
  /** Cancel the import */
  cancelMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Change your password */
  changeAuthPassword: {
    body: {
      current_password: string;
      new_password: string;
    };
    response: {
      message: string;
    };
  };
  /** Create a tenant with its owner */
  createAdminTenant: {
    body: {
      name: string;
      subdomain: string;
      tier?: "free" | "starter" | "pro" | "team" | "enterprise";
      owner: {
        email: string;
        password: string;
        name: string;
      };
    };
    response: {
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
        created_at: string;
      };
      owner: {
        id: string;
        email: string;
        name: string;
        role: string;
      };
      api_key: string;
      test_api_key: string;
    };
  };
  /** Create an API key */
  createApiKey: {
    body: {
      name: string;
      environment?: "live" | "test";
    };
    response: {
      id: string;
      name: string;
      prefix: string;
      environment: "live" | "test";
      created_at: string;
      last_used_at: string | null;
      key: string;
    };
  };
  /** Start a chat about a document, a folder or everything */
  createChatSession: {
    body: {
      document_id?: string;
      folder_id?: string;
      scope?: "tenant";
      name: string;
    };
    response: {
      id: string;
      document_id: string | null;
      scope: "document" | "folder" | "tenant";
      folder_id: string | null;
      name: string;
      message_count: number;
      created_at: string;
      updated_at: string;
    };
  };
  /** Start a workflow through its webhook trigger */
  createDagHook: {
    path: {
      id: string;
    };
    response: {
      execution_id: string;
      workflow_id: string;
      status: string;
      started_at: string;
    };
  };
  /** Create a workflow (draft) */
  createDagWorkflow: {
    body: {
      name: string;
      description?: string;
      status?: "draft";
      trigger?: {
        type: string;
        conditions?: {
          [key: string]: unknown;
        };
      };
      nodes?: {
        id: string;
        type: string;
        config?: {
          [key: string]: unknown;
        };
        depends_on?: string[];
        run_if?: string;
        trigger_rule?: "all_success" | "all_done" | "one_success" | "one_failed" | "none_failed_min_one_success";
        timeout_seconds?: number;
        timeout_hours?: number;
        retry?: {
          max_attempts: number;
          backoff_seconds?: number;
        };
        position?: {
          x: number;
          y: number;
        };
      }[];
      error_handling?: {
        on_failure?: "fail" | "pause" | "continue";
        notify_on_failure?: string[];
      };
    };
    response: {
      id: string;
      name: string;
      status: string;
      version: number;
      created_at: string;
    };
  };
  /** Create a folder */
  createFolder: {
    body: {
      name: string;
      parent_id?: string | null;
      color?: string;
      icon?: string;
    };
    response: {
      id: string;
      name: string;
      parent_id: string | null;
      color: string;
      icon: string;
      document_count?: number;
      created_at: string;
      updated_at?: string;
    };
  };
  /** Place a legal hold */
  createLegalHold: {
    body: {
      name: string;
      document_ids?: string[];
      folder_ids?: string[];
    };
    response: {
      id: string;
      name: string;
      status: "active" | "released";
      document_ids: string[];
      folder_ids: string[];
      created_by: string | null;
      created_at: string;
      released_by: string | null;
      released_at: string | null;
    };
  };
  /** Register an MCP server */
  createMcpServer: {
    body: {
      name: string;
      url: string;
      headers?: {
        [key: string]: string;
      };
    };
    response: {
      id: string;
      name: string;
      url: string;
      headers: {
        [key: string]: string;
      };
      created_at: string;
      updated_at: string;
    };
  };
  /** Create an import project */
  createMigrationsProject: {
    body: {
      name: string;
      description?: string;
      source_type: "google_drive";
      config?: {
        folder_ids?: string[];
        credentials?: {
          access_token: string;
          refresh_token?: string;
          client_id?: string;
          client_secret?: string;
        };
        target_folder_id?: string | null;
        enable_ai?: boolean;
        filters?: {
          include_types?: string[];
          exclude_types?: string[];
          max_file_size_bytes?: number | null;
          exclude_patterns?: string[];
          include_shared?: boolean;
        };
        export_formats?: {
          document?: "pdf" | "docx" | "odt" | "txt" | "html";
          spreadsheet?: "xlsx" | "ods" | "csv" | "pdf";
          presentation?: "pdf" | "pptx" | "odp";
          drawing?: "pdf" | "png" | "svg";
        };
      };
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Assign an AI agent */
  createMigrationsProjectAgent: {
    path: {
      id: string;
    };
    body: {
      agent_type: "ai_tag" | "ai_classify" | "ai_summarize" | "ai_extract" | "workflow";
      phase: "post-import" | "batch" | "completion";
      batch_size?: number;
      config?: {
        [key: string]: unknown;
      };
      auto_approve?: boolean;
    };
    response: {
      id: string;
      project_id: string;
      agent_type: string;
      phase: string;
      batch_size: number | null;
      config: {
        [key: string]: unknown;
      };
      auto_approve: boolean;
      created_at: string;
    };
  };
  /** Create a retention rule */
  createRetentionRule: {
    body: {
      folder_id: string;
      keep_days: number;
      basis: "created" | "last_version";
      action: "delete" | "review";
    };
    response: {
      id: string;
      folder_id: string;
      keep_days: number;
      basis: "created" | "last_version";
      action: "delete" | "review";
      created_by: string | null;
      created_at: string;
      last_run: {
        status: "idle" | "running" | "completed" | "failed";
        started_at: string | null;
        finished_at: string | null;
        examined: number;
        deleted: number;
        review_requested: number;
        held: number;
        error: string | null;
      };
    };
  };
  /** Save a view */
  createSavedView: {
    body: {
      name: string;
      folder_id?: string | null;
      filters?: {
        [key: string]: string;
      };
    };
    response: {
      id: string;
      name: string;
      folder_id: string | null;
      filters: {
        [key: string]: string;
      };
      created_at: string;
      updated_at: string;
    };
  };
  /** Create a tag */
  createTag: {
    body: {
      name: string;
      color?: string;
    };
    response: {
      id: string;
      name: string;
      color: string;
      created_at: string;
    };
  };
  /** Invite a user */
  createUser: {
    body: {
      email: string;
      name: string;
      role?: "owner" | "admin" | "member" | "viewer";
      roles?: string[];
      password?: string;
    };
    response: {
      id: string;
      email: string;
      name: string;
      role: string;
      roles: string[];
      status: string;
      notification_mail: boolean;
      invitation: {
        status: string;
        last_error: string | null;
        created_at: string;
        sent_at: string | null;
      } | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Create a webhook */
  createWebhook: {
    body: {
      url: string;
      events: string[];
      secret?: string;
    };
    response: {
      id: string;
      url: string;
      events: string[];
      status: "active" | "paused" | "disabled";
      status_reason: string | null;
      created_at: string;
      updated_at: string;
      secret: string;
    };
  };
  /** Create a workspace */
  createWorkspace: {
    body: {
      name: string;
      description?: string | null;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      created_by: string | null;
      member_count: number;
      created_at: string;
      updated_at: string;
    };
  };
  /** Add a member to a workspace */
  createWorkspaceMember: {
    path: {
      id: string;
    };
    body: {
      user_id: string;
    };
    response: {
      workspace_id: string;
      members: {
        user_id: string;
        name: string;
        email: string;
        role: string;
        added_at: string;
      }[];
    };
  };
  /** Revoke an API key */
  deleteApiKey: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Revoke one of your sessions */
  deleteAuthSession: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a chat session and its messages */
  deleteChatSession: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a workflow */
  deleteDagWorkflow: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a document */
  deleteDocument: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Remove a document share */
  deleteDocumentShare: {
    path: {
      id: string;
      share_id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a folder */
  deleteFolder: {
    path: {
      id: string;
    };
    query: {
      force?: "true" | "false" | "1" | "0";
    };
    response: {
      message: string;
    };
  };
  /** Release a legal hold */
  deleteLegalHold: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      status: "active" | "released";
      document_ids: string[];
      folder_ids: string[];
      created_by: string | null;
      created_at: string;
      released_by: string | null;
      released_at: string | null;
    };
  };
  /** Delete an MCP server */
  deleteMcpServer: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete an import project */
  deleteMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a retention rule */
  deleteRetentionRule: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a saved view */
  deleteSavedView: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a tag */
  deleteTag: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a user */
  deleteUser: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a webhook */
  deleteWebhook: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Delete a workspace */
  deleteWorkspace: {
    path: {
      id: string;
    };
    response: {
      message: string;
    };
  };
  /** Remove a member from a workspace */
  deleteWorkspaceMember: {
    path: {
      id: string;
      user_id: string;
    };
    response: {
      message: string;
    };
  };
  /** Download a tenant export’s archive */
  downloadAdminTenantExport: {
    path: {
      tenant_id: string;
      export_id: string;
    };
    response: unknown;
  };
  /** Download a document's original file */
  downloadDocument: {
    path: {
      id: string;
    };
    response: unknown;
  };
  /** Download one version of a document */
  downloadDocumentVersion: {
    path: {
      id: string;
      number: string;
    };
    response: unknown;
  };
  /** Download an export’s archive */
  downloadExport: {
    path: {
      id: string;
    };
    response: unknown;
  };
  /** Export a tenant */
  exportAdminTenant: {
    path: {
      tenant_id: string;
    };
    response: {
      id: string;
      tenant_id: string;
      status: "queued" | "running" | "completed" | "failed" | "expired";
      phase: string;
      progress: {
        entries_total: number;
        entries_done: number;
        bytes_total: number;
        bytes_done: number;
        percent: number;
      };
      size: number | null;
      sha256: string | null;
      download_url: string | null;
      expires_at: string | null;
      error: string | null;
      created_at: string;
      finished_at: string | null;
    };
  };
  /** Export audit records */
  exportAudit: {
    query: {
      actor?: string;
      document_id?: string;
      action?: string;
      from?: string;
      to?: string;
      format?: "ndjson" | "csv";
    };
    response: unknown;
  };
  /** Export this tenant */
  exportTenant: {
    response: {
      id: string;
      tenant_id: string;
      status: "queued" | "running" | "completed" | "failed" | "expired";
      phase: string;
      progress: {
        entries_total: number;
        entries_done: number;
        bytes_total: number;
        bytes_done: number;
        percent: number;
      };
      size: number | null;
      sha256: string | null;
      download_url: string | null;
      expires_at: string | null;
      error: string | null;
      created_at: string;
      finished_at: string | null;
    };
  };
  /** Request a password reset */
  forgotAuthPassword: {
    body: {
      email: string;
    };
    response: {
      message: string;
    };
  };
  /** List the mail outbox */
  getAdminMail: {
    query: {
      page?: number;
      page_size?: number;
      status?: "pending" | "sending" | "sent" | "retrying" | "failed" | "dead" | "suppressed";
      tenant_id?: string;
      kind?: "invitation" | "password_reset" | "email_changed" | "task_assigned" | "task_escalated" | "task_expiring" | "workflow_failed" | "workflow_notification" | "storage_migration_completed" | "subscription_changed" | "usage_threshold";
    };
    response: {
      data: {
        id: string;
        tenant_id: string | null;
        kind: string;
        category: string;
        to: string;
        user_id: string | null;
        from_name: string | null;
        subject: string;
        status: string;
        attempts: number;
        last_error: string | null;
        next_attempt_at: string | null;
        server_response: string | null;
        created_at: string;
        updated_at: string;
        sent_at: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** A tenant's storage provider and configured targets */
  getAdminStorageConfig: {
    path: {
      tenant_id: string;
    };
    response: {
      tenant_id: string;
      current_provider: string;
      write_provider: string;
      read_providers: string[];
      available_targets: string[];
      targets: {
        shared: {
          configured: boolean;
        };
        dedicated: {
          configured: boolean;
          location: string | null;
        };
        customer: {
          configured: boolean;
          endpoint?: string | null;
          bucket?: string;
          region?: string;
          prefix?: string;
          access_key_id?: string;
          secret_access_key?: string;
          force_path_style?: boolean;
          verified_at?: string;
        };
      };
    };
  };
  /** The tenant's current (latest) migration, with progress */
  getAdminStorageMigration: {
    path: {
      tenant_id: string;
    };
    response: {
      id: string;
      tenant_id: string;
      source_provider: string;
      target_provider: string;
      status: string;
      phase: string;
      total_files: number;
      migrated_files: number;
      failed_files: number;
      skipped_files: number;
      total_bytes: number;
      migrated_bytes: number;
      initiated_by_email: string | null;
      error: string | null;
      cancel_reason: string | null;
      created_at: string;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      source_purge_at: string | null;
      source_purged_at: string | null;
      progress_percent: number;
      current_file: string | null;
      estimated_completion: string | null;
    };
  };
  /** Files whose copy failed after every automatic retry */
  getAdminStorageMigrationFailed: {
    path: {
      migration_id: string;
    };
    response: {
      failed_files: {
        file_id: string;
        file_path: string;
        error: string | null;
        attempts: number;
        last_attempt: string | null;
      }[];
      total_failed: number;
    };
  };
  /** The tenant's migrations, newest first */
  getAdminStorageMigrationHistory: {
    path: {
      tenant_id: string;
    };
    response: {
      migrations: {
        id: string;
        tenant_id: string;
        source_provider: string;
        target_provider: string;
        status: string;
        phase: string;
        total_files: number;
        migrated_files: number;
        failed_files: number;
        skipped_files: number;
        total_bytes: number;
        migrated_bytes: number;
        initiated_by_email: string | null;
        error: string | null;
        cancel_reason: string | null;
        created_at: string;
        started_at: string | null;
        completed_at: string | null;
        cancelled_at: string | null;
        source_purge_at: string | null;
        source_purged_at: string | null;
      }[];
      count: number;
    };
  };
  /** Get a tenant with usage counts */
  getAdminTenant: {
    path: {
      tenant_id: string;
    };
    response: {
      id: string;
      name: string;
      subdomain: string;
      tier: string;
      status: string;
      cors_origins: string[];
      created_at: string;
      updated_at: string;
      usage: {
        [key: string]: number;
      };
    };
  };
  /** A tenant export’s progress */
  getAdminTenantExport: {
    path: {
      tenant_id: string;
      export_id: string;
    };
    response: {
      id: string;
      tenant_id: string;
      status: "queued" | "running" | "completed" | "failed" | "expired";
      phase: string;
      progress: {
        entries_total: number;
        entries_done: number;
        bytes_total: number;
        bytes_done: number;
        percent: number;
      };
      size: number | null;
      sha256: string | null;
      download_url: string | null;
      expires_at: string | null;
      error: string | null;
      created_at: string;
      finished_at: string | null;
    };
  };
  /** List audit records */
  getAudit: {
    query: {
      actor?: string;
      document_id?: string;
      action?: string;
      from?: string;
      to?: string;
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        at: string;
        actor_type: string;
        actor_id: string | null;
        action: string;
        target_type: string | null;
        target_id: string | null;
        outcome: string;
        status: number | null;
        ip: string | null;
        user_agent: string | null;
        request_id: string | null;
        details: {
          [key: string]: unknown;
        } | null;
      }[];
      total: number;
      page: number;
      page_size: number;
      total_capped: boolean;
    };
  };
  /** Get a fresh CSRF token */
  getAuthCsrf: {
    response: {
      csrf_token: string;
    };
  };
  /** Get the caller, their tenant and how they signed in */
  getAuthMe: {
    response: {
      user: {
        id: string;
        email: string;
        name: string;
        role: string;
        roles: string[];
        status: string;
        notification_mail: boolean;
        invitation: {
          status: string;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        } | null;
        created_at: string;
        updated_at: string;
      } | null;
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
        status: string;
      };
      auth: {
        via: string;
        role: string;
        sandbox: boolean;
        session_id: string | null;
      };
    };
  };
  /** Get the progress of a batch upload */
  getBatchJob: {
    path: {
      id: string;
    };
    response: {
      id: string;
      collection_id: string;
      status: string;
      total: number;
      completed: number;
      failed: number;
      documents: {
        id: string;
        filename: string;
        status: string;
        ai_status: string;
      }[];
      rejected: {
        filename: string;
        error: string;
        code: string;
        message: string;
      }[];
      created_at: string;
    };
  };
  /** Get a chat session */
  getChatSession: {
    path: {
      id: string;
    };
    response: {
      id: string;
      document_id: string | null;
      scope: "document" | "folder" | "tenant";
      folder_id: string | null;
      name: string;
      message_count: number;
      created_at: string;
      updated_at: string;
    };
  };
  /** Get an execution with node results */
  getDagExecution: {
    path: {
      id: string;
    };
    response: {
      id: string;
      workflow_id: string;
      workflow_name: string;
      workflow_version: number;
      status: string;
      paused_reason: string | null;
      test_run: boolean;
      trigger_type: string;
      priority: "low" | "normal" | "high" | "urgent";
      started_at: string;
      finished_at: string | null;
      error: string | null;
      failed_node_id: string | null;
      cancelled_at?: string | null;
      reason?: string | null;
      current_node?: string | null;
      nodes_completed?: string[];
      nodes_pending?: string[];
      progress_percent?: number;
      trigger_data?: unknown;
      node_results?: unknown;
      final_output?: unknown;
      definition?: {
        nodes: unknown;
        trigger: unknown;
        error_handling: unknown;
      };
    };
  };
  /** Get a human task */
  getDagTask: {
    path: {
      id: string;
    };
    response: {
      id: string;
      execution_id: string | null;
      workflow_id: string | null;
      workflow_name: string | null;
      node_id: string | null;
      source: string;
      source_ref: string | null;
      task_type: string;
      title: string;
      description: string;
      context: unknown;
      data: unknown;
      editable_fields: string[] | null;
      assignee_type: string;
      assignee_value: string;
      status: string;
      decision: string | null;
      comments: string | null;
      decided_by: string | null;
      created_at: string;
      due_at: string;
      escalation_at: string;
      escalated_at: string | null;
      completed_at: string | null;
    };
  };
  /** Get a workflow with statistics */
  getDagWorkflow: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string;
      status: string;
      version: number;
      trigger: unknown;
      nodes: unknown;
      error_handling: unknown;
      statistics?: unknown;
      created_at: string;
      updated_at: string;
    };
  };
  /** Get a document */
  getDocument: {
    path: {
      id: string;
    };
    response: {
      id: string;
      filename: string;
      original_filename: string;
      file_type: string;
      file_size: number;
      folder_id: string | null;
      status: string;
      ai_status: string;
      ai_summary: string | null;
      ai_tags: string[];
      ai_document_type: {
        value: string;
        confidence: number;
        confirmed?: true;
      } | null;
      tags: string[];
      created_at: string;
      updated_at: string;
      processing_progress: {
        stage: string;
        pages_done: number | null;
        pages_total: number | null;
      } | null;
      storage_path: string;
      thumbnail_url: string;
      ai_thumbnail_url: string | null;
      entities: {
        people: string[];
        organizations: string[];
        dates: string[];
        locations: string[];
        amounts: {
          value: number;
          currency: string;
          text: string;
          confidence: number | null;
        }[];
        details: {
          people: {
            name: string;
            confidence: number;
          }[];
          organizations: {
            name: string;
            confidence: number;
          }[];
          locations: {
            name: string;
            confidence: number;
          }[];
          dates: {
            value: string;
            text: string;
            confidence: number;
            alternatives?: string[];
          }[];
        } | null;
      };
      ai_summary_confidence: number | null;
      ai_fields: {
        [key: string]: {
          value: string | string[] | {
            value: number;
            currency: string;
            text: string;
            period?: string;
          } | {
            value: string;
            text: string;
          };
          confidence: number;
          confirmed?: true;
        };
      };
      ai_tag_details: {
        name: string;
        confidence: number | null;
        source: string;
      }[];
      ai_review: {
        task_id: string;
        pending: string[];
      } | null;
      metadata: {
        [key: string]: unknown;
      };
      processing_error: {
        stage: string;
        message: string;
      } | null;
    };
  };
  /** Get a document's extracted text */
  getDocumentContent: {
    path: {
      id: string;
    };
    query: {
      page?: number;
    };
    response: {
      content: string;
      content_type: string;
      length: number;
      pages?: number;
      page?: number;
    };
  };
  /** Get a document's thumbnail */
  getDocumentThumbnail: {
    path: {
      id: string;
    };
    response: unknown;
  };
  /** An export’s progress */
  getExport: {
    path: {
      id: string;
    };
    response: {
      id: string;
      tenant_id: string;
      status: "queued" | "running" | "completed" | "failed" | "expired";
      phase: string;
      progress: {
        entries_total: number;
        entries_done: number;
        bytes_total: number;
        bytes_done: number;
        percent: number;
      };
      size: number | null;
      sha256: string | null;
      download_url: string | null;
      expires_at: string | null;
      error: string | null;
      created_at: string;
      finished_at: string | null;
    };
  };
  /** Get a folder */
  getFolder: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      parent_id: string | null;
      color: string;
      icon: string;
      document_count?: number;
      created_at: string;
      updated_at?: string;
    };
  };
  /** Check liveness and what this deployment can do */
  getHealth: {
    response: {
      status: string;
      capabilities: {
        [key: string]: unknown;
      };
    };
  };
  /** Check liveness */
  getHealthz: {
    response: {
      status: string;
      checks?: {
        [key: string]: string;
      };
    };
  };
  /** Get a legal hold */
  getLegalHold: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      status: "active" | "released";
      document_ids: string[];
      folder_ids: string[];
      created_by: string | null;
      created_at: string;
      released_by: string | null;
      released_at: string | null;
    };
  };
  /** Get an MCP server */
  getMcpServer: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      url: string;
      headers: {
        [key: string]: string;
      };
      created_at: string;
      updated_at: string;
    };
  };
  /** Get an import project */
  getMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Import progress */
  getMigrationsProjectProgress: {
    path: {
      id: string;
    };
    response: {
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      pending_items: number;
      total_bytes: number;
      migrated_bytes: number;
      current_item: string | null;
      started_at: string | null;
      estimated_completion: string | null;
    };
  };
  /** Get this OpenAPI 3.1 document */
  getOpenApiDocument: {
    response: {
      [key: string]: unknown;
    };
  };
  /** Check readiness */
  getReadyz: {
    response: {
      status: string;
      checks?: {
        [key: string]: string;
      };
    };
  };
  /** Get a retention rule */
  getRetentionRule: {
    path: {
      id: string;
    };
    response: {
      id: string;
      folder_id: string;
      keep_days: number;
      basis: "created" | "last_version";
      action: "delete" | "review";
      created_by: string | null;
      created_at: string;
      last_run: {
        status: "idle" | "running" | "completed" | "failed";
        started_at: string | null;
        finished_at: string | null;
        examined: number;
        deleted: number;
        review_requested: number;
        held: number;
        error: string | null;
      };
    };
  };
  /** Get a saved view */
  getSavedView: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      folder_id: string | null;
      filters: {
        [key: string]: string;
      };
      created_at: string;
      updated_at: string;
    };
  };
  /** A checkout of the tenant */
  getSubscriptionCheckout: {
    path: {
      checkout_id: string;
    };
    response: {
      checkout_id: string;
      checkout_url: string;
      tier: string;
      status: "open" | "completed" | "expired";
      expires_at: string;
      completed_at?: string | null;
    };
  };
  /** Tier changes, newest first */
  getSubscriptionHistory: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        from_tier: string;
        to_tier: string;
        reason: "checkout" | "admin" | "provider_event";
        changed_by: string | null;
        reference: string | null;
        changed_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** Subscription status, limits and usage */
  getSubscriptionStatus: {
    response: {
      tier: "free" | "starter" | "pro" | "team" | "enterprise";
      status: "active" | "past_due" | "cancelled";
      current_period_start: string;
      current_period_end: string;
      cancel_at: string | null;
      limits: {
        requests_per_minute: number | null;
        storage_bytes: number | null;
        ai_credits: number | null;
        documents: number | null;
      };
      usage: {
        storage_bytes: number;
        documents: number;
        ai_credits_used: number;
      };
      features: {
        workflows: boolean;
        import_projects: boolean;
        enhanced_search: boolean;
        video_transcription: boolean;
      };
    };
  };
  /** Get a user */
  getUser: {
    path: {
      id: string;
    };
    response: {
      id: string;
      email: string;
      name: string;
      role: string;
      roles: string[];
      status: string;
      notification_mail: boolean;
      invitation: {
        status: string;
        last_error: string | null;
        created_at: string;
        sent_at: string | null;
      } | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Get a webhook */
  getWebhook: {
    path: {
      id: string;
    };
    response: {
      id: string;
      url: string;
      events: string[];
      status: "active" | "paused" | "disabled";
      status_reason: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Get a workspace with its members */
  getWorkspace: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      created_by: string | null;
      member_count: number;
      created_at: string;
      updated_at: string;
      members: {
        user_id: string;
        name: string;
        email: string;
        role: string;
        added_at: string;
      }[];
    };
  };
  /** Import a tenant from an export archive */
  importAdminTenants: {
    multipart: {
      subdomain?: string;
      name?: string;
      tier?: "free" | "starter" | "pro" | "team" | "enterprise";
      archive: Blob;
    };
    response: {
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
      };
      imported: {
        [key: string]: number;
      };
      not_imported: {
        [key: string]: string;
      };
      remapped: {
        [key: string]: number;
      };
      passwords: "kept" | "reset";
      warnings: string[];
    };
  };
  /** List tenants */
  listAdminTenants: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
        status: string;
        cors_origins: string[];
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List API keys */
  listApiKeys: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        prefix: string;
        environment: "live" | "test";
        created_at: string;
        last_used_at: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List your active sessions */
  listAuthSessions: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        current: boolean;
        user_agent: string | null;
        ip: string | null;
        created_at: string;
        last_used_at: string;
        expires_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List batch uploads */
  listBatchJobs: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        collection_id: string;
        status: string;
        total: number;
        completed: number;
        failed: number;
        documents: {
          id: string;
          filename: string;
          status: string;
          ai_status: string;
        }[];
        rejected: {
          filename: string;
          error: string;
          code: string;
          message: string;
        }[];
        created_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List the messages of a chat session */
  listChatSessionMessages: {
    path: {
      id: string;
    };
    query: {
      page?: number;
      page_size?: number;
      document_id?: string;
    };
    response: {
      data: {
        id: string;
        role: "user" | "assistant";
        content: string;
        citations?: {
          document_id: string;
          version?: number;
          text: string;
          page?: number;
          score: number;
        }[];
        created_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List your chat sessions */
  listChatSessions: {
    query: {
      page?: number;
      page_size?: number;
      document_id?: string;
    };
    response: {
      data: {
        id: string;
        document_id: string | null;
        scope: "document" | "folder" | "tenant";
        folder_id: string | null;
        name: string;
        message_count: number;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List executions */
  listDagExecutions: {
    query: {
      page?: number;
      page_size?: number;
      workflow_id?: string;
      status?: "running" | "paused" | "completed" | "failed" | "cancelled";
    };
    response: {
      data: {
        id: string;
        workflow_id: string;
        workflow_name: string;
        workflow_version: number;
        status: string;
        paused_reason: string | null;
        test_run: boolean;
        trigger_type: string;
        priority: "low" | "normal" | "high" | "urgent";
        started_at: string;
        finished_at: string | null;
        error: string | null;
        failed_node_id: string | null;
        cancelled_at?: string | null;
        reason?: string | null;
        current_node?: string | null;
        nodes_completed?: string[];
        nodes_pending?: string[];
        progress_percent?: number;
        trigger_data?: unknown;
        node_results?: unknown;
        final_output?: unknown;
        definition?: {
          nodes: unknown;
          trigger: unknown;
          error_handling: unknown;
        };
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List human tasks */
  listDagTasks: {
    query: {
      page?: number;
      page_size?: number;
      assignee?: string;
      role?: string;
      status?: "pending" | "completed" | "expired";
    };
    response: {
      data: {
        id: string;
        execution_id: string | null;
        workflow_id: string | null;
        workflow_name: string | null;
        node_id: string | null;
        source: string;
        source_ref: string | null;
        task_type: string;
        title: string;
        description: string;
        context: unknown;
        data: unknown;
        editable_fields: string[] | null;
        assignee_type: string;
        assignee_value: string;
        status: string;
        decision: string | null;
        comments: string | null;
        decided_by: string | null;
        created_at: string;
        due_at: string;
        escalation_at: string;
        escalated_at: string | null;
        completed_at: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List workflows */
  listDagWorkflows: {
    query: {
      page?: number;
      page_size?: number;
      status?: "draft" | "active" | "paused";
    };
    response: {
      data: {
        id: string;
        name: string;
        description: string;
        status: string;
        version: number;
        trigger_type: string;
        node_count: number;
        last_execution: string | null;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List a document's shares */
  listDocumentShares: {
    path: {
      id: string;
    };
    response: {
      shares: {
        share_id: string;
        document_id: string;
        user_id?: string;
        workspace_id?: string;
        permission: string;
        created_at: string;
        user_name?: string;
        workspace_name?: string;
      }[];
    };
  };
  /** List a document's versions */
  listDocumentVersions: {
    path: {
      id: string;
    };
    response: {
      document_id: string;
      current_version: number;
      versions: {
        document_id: string;
        number: number;
        current: boolean;
        filename: string;
        file_type: string;
        file_size: number;
        sha256: string;
        created_at: string;
        created_by: string | null;
      }[];
    };
  };
  /** List documents */
  listDocuments: {
    query: {
      page?: number;
      limit?: number;
      page_size?: number;
      folder_id?: string;
      tag_id?: string;
      tag_ids?: string;
      tag_match?: "all" | "any";
      entity?: string;
      entity_type?: "person" | "organization" | "date" | "location" | "amount";
      status?: string;
      ai_status?: string;
      search?: string;
      sort?: "name" | "created_at" | "updated_at" | "size";
      order?: "asc" | "desc";
      file_type?: string;
      date_start?: string;
      date_end?: string;
    };
    response: {
      data: {
        id: string;
        filename: string;
        original_filename: string;
        file_type: string;
        file_size: number;
        folder_id: string | null;
        status: string;
        ai_status: string;
        ai_summary: string | null;
        ai_tags: string[];
        ai_document_type: {
          value: string;
          confidence: number;
          confirmed?: true;
        } | null;
        tags: string[];
        created_at: string;
        updated_at: string;
        processing_progress: {
          stage: string;
          pages_done: number | null;
          pages_total: number | null;
        } | null;
        entities?: {
          people: string[];
          organizations: string[];
          dates: string[];
          locations: string[];
          amounts: {
            value: number;
            currency: string;
            text: string;
            confidence: number | null;
          }[];
          details: {
            people: {
              name: string;
              confidence: number;
            }[];
            organizations: {
              name: string;
              confidence: number;
            }[];
            locations: {
              name: string;
              confidence: number;
            }[];
            dates: {
              value: string;
              text: string;
              confidence: number;
              alternatives?: string[];
            }[];
          } | null;
        };
      }[];
      total: number;
      page: number;
      page_size: number;
      total_pages: number;
    };
  };
  /** List folders */
  listFolders: {
    query: {
      parent_id?: string;
      include_document_count?: "true" | "false" | "1" | "0";
    };
    response: {
      folders: {
        id: string;
        name: string;
        parent_id: string | null;
        color: string;
        icon: string;
        document_count?: number;
        created_at: string;
        updated_at?: string;
      }[];
    };
  };
  /** List legal holds */
  listLegalHolds: {
    query: {
      page?: number;
      page_size?: number;
      status?: "active" | "released";
    };
    response: {
      data: {
        id: string;
        name: string;
        status: "active" | "released";
        document_ids: string[];
        folder_ids: string[];
        created_by: string | null;
        created_at: string;
        released_by: string | null;
        released_at: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** The tenant's mail settings */
  listMailSettings: {
    response: {
      sender_name: string | null;
    };
  };
  /** List an MCP server's tools */
  listMcpServerTools: {
    path: {
      id: string;
    };
    response: {
      server_id: string;
      tools: {
        name: string;
        title?: string;
        description?: string;
        input_schema: {
          [key: string]: unknown;
        };
        output_schema?: {
          [key: string]: unknown;
        };
      }[];
    };
  };
  /** List MCP servers */
  listMcpServers: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        url: string;
        headers: {
          [key: string]: string;
        };
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List a project's agent runs */
  listMigrationsProjectAgentRuns: {
    path: {
      id: string;
    };
    query: {
      page?: number;
      page_size?: number;
      agent_id?: string;
      status?: "queued" | "awaiting_approval" | "applied" | "rejected" | "expired" | "failed";
    };
    response: {
      data: {
        id: string;
        agent_id: string;
        agent_type: string;
        scope: string;
        status: "queued" | "awaiting_approval" | "applied" | "rejected" | "expired" | "failed";
        document_ids: string[];
        proposal: unknown;
        result: unknown;
        task_id: string | null;
        error: string | null;
        created_at: string;
        updated_at: string;
        finished_at: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List a project's agents */
  listMigrationsProjectAgents: {
    path: {
      id: string;
    };
    response: {
      data: {
        id: string;
        project_id: string;
        agent_type: string;
        phase: string;
        batch_size: number | null;
        config: {
          [key: string]: unknown;
        };
        auto_approve: boolean;
        created_at: string;
      } & {
        runs: {
          queued: number;
          awaiting_approval: number;
          applied: number;
          rejected: number;
          expired: number;
          failed: number;
        };
      }[];
    };
  };
  /** List the files of a project */
  listMigrationsProjectItems: {
    path: {
      id: string;
    };
    query: {
      page?: number;
      page_size?: number;
      status?: "pending" | "imported" | "failed" | "skipped";
      type?: string;
      min_size?: number;
      max_size?: number;
    };
    response: {
      data: {
        id: string;
        source_file_id: string;
        name: string;
        path: string;
        mime_type: string;
        size: number | null;
        status: "pending" | "imported" | "failed" | "skipped";
        document_id: string | null;
        error: string | null;
        attempts: number;
        skip_reason: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List import projects */
  listMigrationsProjects: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        description: string | null;
        source_type: string;
        status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
        config: {
          folder_ids: string[];
          target_folder_id: string | null;
          enable_ai: boolean;
          filters: {
            include_types: string[];
            exclude_types: string[];
            max_file_size_bytes: number | null;
            exclude_patterns: string[];
            include_shared: boolean;
          };
          export_formats: {
            document: string;
            spreadsheet: string;
            presentation: string;
            drawing: string;
          };
          has_credentials: boolean;
        };
        total_items: number;
        processed_items: number;
        failed_items: number;
        skipped_items: number;
        progress_percent: number;
        error: string | null;
        scanned_at: string | null;
        started_at: string | null;
        completed_at: string | null;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List retention rules */
  listRetentionRules: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        folder_id: string;
        keep_days: number;
        basis: "created" | "last_version";
        action: "delete" | "review";
        created_by: string | null;
        created_at: string;
        last_run: {
          status: "idle" | "running" | "completed" | "failed";
          started_at: string | null;
          finished_at: string | null;
          examined: number;
          deleted: number;
          review_requested: number;
          held: number;
          error: string | null;
        };
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List saved views */
  listSavedViews: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        folder_id: string | null;
        filters: {
          [key: string]: string;
        };
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List tags */
  listTags: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      data: {
        id: string;
        name: string;
        color: string;
        created_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** Get the tenant's settings */
  listTenantSettings: {
    response: {
      ai_review_threshold: number | null;
    };
  };
  /** List users */
  listUsers: {
    query: {
      page?: number;
      page_size?: number;
      role?: "owner" | "admin" | "member" | "viewer";
    };
    response: {
      data: {
        id: string;
        email: string;
        name: string;
        role: string;
        roles: string[];
        status: string;
        notification_mail: boolean;
        invitation: {
          status: string;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        } | null;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List delivery attempts */
  listWebhookDeliveries: {
    path: {
      id: string;
    };
    query: {
      page?: number;
      page_size?: number;
      status?: "pending" | "success" | "failed" | "cancelled";
      event?: string;
    };
    response: {
      data: {
        id: string;
        event_id: string;
        event: string;
        status: "pending" | "success" | "failed" | "cancelled";
        response_status: number | null;
        duration_ms: number | null;
        attempt: number;
        next_retry_at: string | null;
        created_at: string;
        trigger: "event" | "retry" | "redeliver" | "test";
        scheduled_at: string;
        sent_at: string | null;
        error: string | null;
        response_excerpt: string | null;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List webhooks */
  listWebhooks: {
    query: {
      page?: number;
      page_size?: number;
    };
    response: {
      webhooks: {
        id: string;
        url: string;
        events: string[];
        status: "active" | "paused" | "disabled";
        status_reason: string | null;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** List the node types a workflow may use */
  listWorkflowNodeTypes: {
    response: {
      node_types: {
        type: string;
        label: string;
        group: "logic" | "data" | "ai" | "human" | "out";
        fields: {
          key: string;
          type: "string" | "number" | "integer" | "boolean" | "array" | "object" | "any";
          format?: "cel" | "jsonata" | "multiline" | "cron" | "uri" | ("date-time") | "timezone" | "template";
          items?: "string";
          required: boolean;
          enum?: string[];
          default?: unknown;
          label: string;
          description?: string;
        }[];
        required: string[];
        cel: string[];
        jsonata: string[];
        waits: boolean;
        default_trigger_rule: string;
      }[];
    };
  };
  /** List workspaces */
  listWorkspaces: {
    query: {
      page?: number;
      page_size?: number;
      member_id?: string;
    };
    response: {
      data: {
        id: string;
        name: string;
        description: string | null;
        created_by: string | null;
        member_count: number;
        created_at: string;
        updated_at: string;
      }[];
      total: number;
      page: number;
      page_size: number;
    };
  };
  /** Sign in with e-mail and password */
  loginAuth: {
    body: {
      email: string;
      password: string;
    };
    response: {
      access_token: string;
      refresh_token: string;
      csrf_token: string;
      token_type: "Bearer";
      expires_in: number;
      refresh_expires_in: number;
      session_id: string;
      user: {
        id: string;
        email: string;
        name: string;
        role: string;
        roles: string[];
        status: string;
        notification_mail: boolean;
        invitation: {
          status: string;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        } | null;
        created_at: string;
        updated_at: string;
      };
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
      };
    };
  };
  /** Sign out */
  logoutAuth: {
    response: {
      message: string;
    };
  };
  /** Pause a running execution */
  pauseDagExecution: {
    path: {
      id: string;
    };
    response: {
      execution_id: string;
      status: string;
      paused_at: string;
      can_resume: boolean;
    };
  };
  /** Pause the import */
  pauseMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Complete a manual checkout */
  postAdminCheckoutComplete: {
    path: {
      checkout_id: string;
    };
    response: {
      checkout_id: string;
      tenant_id: string;
      tier: string;
      status: "completed";
      completed_at: string;
    };
  };
  /** Start moving a tenant's files to another provider */
  postAdminStorageConfigMigrate: {
    path: {
      tenant_id: string;
    };
    body: {
      target_provider: "shared" | "dedicated" | "customer";
      initiated_by_email?: string;
    };
    response: {
      id: string;
      tenant_id: string;
      source_provider: string;
      target_provider: string;
      status: string;
      phase: string;
      total_files: number;
      migrated_files: number;
      failed_files: number;
      skipped_files: number;
      total_bytes: number;
      migrated_bytes: number;
      initiated_by_email: string | null;
      error: string | null;
      cancel_reason: string | null;
      created_at: string;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      source_purge_at: string | null;
      source_purged_at: string | null;
    };
  };
  /** Complete a human task */
  postDagTaskComplete: {
    path: {
      id: string;
    };
    body: {
      decision: "approved" | "rejected" | "modified";
      comments?: string;
      modified_data?: {
        [key: string]: unknown;
      };
    };
    response: {
      task_id: string;
      status: string;
      decision: string;
      completed_at: string;
      execution_id: string | null;
      execution_status: string | null;
    };
  };
  /** Start an execution */
  postDagWorkflowExecute: {
    path: {
      id: string;
    };
    body: {
      trigger_data?: {
        [key: string]: unknown;
      };
      priority?: "low" | "normal" | "high" | "urgent" | "medium" | "critical";
    };
    response: {
      execution_id: string;
      workflow_id: string;
      status: string;
      test_run: boolean;
      started_at: string;
    };
  };
  /** Validate a workflow */
  postDagWorkflowValidate: {
    path: {
      id: string;
    };
    response: {
      valid: boolean;
      errors: string[];
      warnings: string[];
      issues: {
        severity: "error" | "warning";
        code: string;
        message: string;
        node_id?: string;
        field?: string;
      }[];
    };
  };
  /** Model Context Protocol endpoint for AI agents */
  postMcp: {
    body: {
      [key: string]: unknown;
    };
    response: unknown;
  };
  /** Start scanning */
  postMigrationsProjectScan: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Enhanced search with query understanding (Pro tier and above) */
  postSearchEnhanced: {
    body: {
      query: string;
      filters?: {
        date_range?: {
          start?: string;
          end?: string;
        };
        tags?: string[];
        ai_categories?: string[];
        folder_id?: string;
      };
      include_similar?: boolean;
      min_score?: number;
      limit?: number;
    };
    response: {
      results: {
        document: {
          id: string;
          filename: string;
          ai_summary: string | null;
          folder_id: string | null;
          created_at: string;
        };
        score: number;
        relevance: "high" | "medium" | "low" | "very_low";
        highlight: string;
        matched?: ("text" | "semantic")[];
        similar_to?: string;
      }[];
      mode: string;
      query: string;
      total: number;
      applied_filters?: {
        type: "date_range" | "file_type" | "tag" | "ai_category" | "folder";
        source: "query" | "request";
        text?: string;
        value: unknown;
      }[];
    };
  };
  /** Hybrid search: keyword and semantic together */
  postSearchHybrid: {
    body: {
      query: string;
      semantic_weight?: number;
      text_weight?: number;
      limit?: number;
      min_score?: number;
      filters?: {
        folder_id?: string;
        tag_id?: string;
        file_type?: string;
        date_range?: {
          start?: string;
          end?: string;
        };
      };
    };
    response: {
      results: {
        document: {
          id: string;
          filename: string;
          ai_summary: string | null;
          folder_id: string | null;
          created_at: string;
        };
        score: number;
        relevance: "high" | "medium" | "low" | "very_low";
        highlight: string;
        matched?: ("text" | "semantic")[];
        similar_to?: string;
      }[];
      mode: string;
      query: string;
      total: number;
      applied_filters?: {
        type: "date_range" | "file_type" | "tag" | "ai_category" | "folder";
        source: "query" | "request";
        text?: string;
        value: unknown;
      }[];
    };
  };
  /** Start a checkout for another tier */
  postSubscriptionCheckout: {
    body: {
      tier: "starter" | "pro" | "team" | "enterprise";
      success_url: string;
      cancel_url: string;
    };
    response: {
      checkout_id: string;
      checkout_url: string;
      tier: string;
      status: "open" | "completed" | "expired";
      expires_at: string;
      completed_at?: string | null;
    };
  };
  /** Set a new signing secret */
  postWebhookSecret: {
    path: {
      id: string;
    };
    body: {
      secret?: string;
    };
    response: {
      id: string;
      url: string;
      events: string[];
      status: "active" | "paused" | "disabled";
      status_reason: string | null;
      created_at: string;
      updated_at: string;
      secret: string;
    };
  };
  /** Redeliver an event */
  redeliverWebhookDelivery: {
    path: {
      id: string;
      delivery_id: string;
    };
    response: {
      id: string;
      event_id: string;
      event: string;
      status: "pending" | "success" | "failed" | "cancelled";
      response_status: number | null;
      duration_ms: number | null;
      attempt: number;
      next_retry_at: string | null;
      created_at: string;
      trigger: "event" | "retry" | "redeliver" | "test";
      scheduled_at: string;
      sent_at: string | null;
      error: string | null;
      response_excerpt: string | null;
    };
  };
  /** Refresh the access token */
  refreshAuth: {
    body: {
      refresh_token: string;
    };
    response: {
      access_token: string;
      refresh_token: string;
      csrf_token: string;
      token_type: "Bearer";
      expires_in: number;
      refresh_expires_in: number;
      session_id: string;
      user: {
        id: string;
        email: string;
        name: string;
        role: string;
        roles: string[];
        status: string;
        notification_mail: boolean;
        invitation: {
          status: string;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        } | null;
        created_at: string;
        updated_at: string;
      };
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
      };
    };
  };
  /** Register a tenant and its owner */
  registerAuth: {
    body: {
      tenant_name: string;
      subdomain: string;
      email: string;
      password: string;
      name: string;
    };
    response: {
      access_token: string;
      refresh_token: string;
      csrf_token: string;
      token_type: "Bearer";
      expires_in: number;
      refresh_expires_in: number;
      session_id: string;
      user: {
        id: string;
        email: string;
        name: string;
        role: string;
        roles: string[];
        status: string;
        notification_mail: boolean;
        invitation: {
          status: string;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        } | null;
        created_at: string;
        updated_at: string;
      };
      tenant: {
        id: string;
        name: string;
        subdomain: string;
        tier: string;
      };
    };
  };
  /** Run extraction and AI again */
  reprocessDocument: {
    path: {
      id: string;
    };
    response: {
      message: string;
      document_id: string;
      status: string;
      ai_status: string;
    };
  };
  /** Reset a password with a reset token */
  resetAuthPassword: {
    body: {
      token: string;
      new_password: string;
    };
    response: {
      message: string;
    };
  };
  /** Make an earlier version current again */
  restoreDocumentVersion: {
    path: {
      id: string;
      number: string;
    };
    response: {
      document_id: string;
      number: number;
      current: boolean;
      filename: string;
      file_type: string;
      file_size: number;
      sha256: string;
      created_at: string;
      created_by: string | null;
      restored: boolean;
    };
  };
  /** Resume a paused execution */
  resumeDagExecution: {
    path: {
      id: string;
    };
    body: {
      modified_data?: {
        [key: string]: unknown;
      };
    };
    response: {
      execution_id: string;
      status: string;
      resumed_at: string;
    };
  };
  /** Resume the import */
  resumeMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Send a failed or dead mail again */
  retryAdminMail: {
    path: {
      mail_id: string;
    };
    response: {
      id: string;
      tenant_id: string | null;
      kind: string;
      category: string;
      to: string;
      user_id: string | null;
      from_name: string | null;
      subject: string;
      status: string;
      attempts: number;
      last_error: string | null;
      next_attempt_at: string | null;
      server_response: string | null;
      created_at: string;
      updated_at: string;
      sent_at: string | null;
    };
  };
  /** Copy the failed files again */
  retryAdminStorageMigration: {
    path: {
      migration_id: string;
    };
    response: {
      id: string;
      tenant_id: string;
      source_provider: string;
      target_provider: string;
      status: string;
      phase: string;
      total_files: number;
      migrated_files: number;
      failed_files: number;
      skipped_files: number;
      total_bytes: number;
      migrated_bytes: number;
      initiated_by_email: string | null;
      error: string | null;
      cancel_reason: string | null;
      created_at: string;
      started_at: string | null;
      completed_at: string | null;
      cancelled_at: string | null;
      source_purge_at: string | null;
      source_purged_at: string | null;
    };
  };
  /** Rotate an API key's secret */
  rotateApiKey: {
    path: {
      id: string;
    };
    body: {
      grace_seconds?: number;
    } | null;
    response: {
      id: string;
      name: string;
      prefix: string;
      environment: "live" | "test";
      created_at: string;
      last_used_at: string | null;
      key: string;
      previous_key_expires_at: string;
    };
  };
  /** Run a retention rule now */
  runRetentionRule: {
    path: {
      id: string;
    };
    response: {
      id: string;
      folder_id: string;
      keep_days: number;
      basis: "created" | "last_version";
      action: "delete" | "review";
      created_by: string | null;
      created_at: string;
      last_run: {
        status: "idle" | "running" | "completed" | "failed";
        started_at: string | null;
        finished_at: string | null;
        examined: number;
        deleted: number;
        review_requested: number;
        held: number;
        error: string | null;
      };
    };
  };
  /** Search documents by keyword or meaning */
  search: {
    query: {
      q?: string;
      mode?: "semantic" | "text" | "auto" | "keyword";
      folder_id?: string;
      tag_id?: string;
      file_type?: string;
      date_start?: string;
      date_end?: string;
      limit?: number;
      min_score?: number;
    };
    response: {
      results: {
        document: {
          id: string;
          filename: string;
          ai_summary: string | null;
          folder_id: string | null;
          created_at: string;
        };
        score: number;
        relevance: "high" | "medium" | "low" | "very_low";
        highlight: string;
        matched?: ("text" | "semantic")[];
        similar_to?: string;
      }[];
      mode: string;
      query: string;
      total: number;
      applied_filters?: {
        type: "date_range" | "file_type" | "tag" | "ai_category" | "folder";
        source: "query" | "request";
        text?: string;
        value: unknown;
      }[];
    };
  };
  /** Share a document with a user or workspace */
  shareDocument: {
    path: {
      id: string;
    };
    body: {
      user_id?: string;
      workspace_id?: string;
      permission: "view" | "edit" | "admin";
    };
    response: {
      share_id: string;
      document_id: string;
      user_id?: string;
      workspace_id?: string;
      permission: string;
      created_at: string;
    };
  };
  /** Begin the import */
  startMigrationsProject: {
    path: {
      id: string;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Send a test event */
  testWebhook: {
    path: {
      id: string;
    };
    response: {
      id: string;
      event_id: string;
      event: string;
      status: "pending" | "success" | "failed" | "cancelled";
      response_status: number | null;
      duration_ms: number | null;
      attempt: number;
      next_retry_at: string | null;
      created_at: string;
      trigger: "event" | "retry" | "redeliver" | "test";
      scheduled_at: string;
      sent_at: string | null;
      error: string | null;
      response_excerpt: string | null;
    };
  };
  /** Set the tenant's customer-owned (S3-compatible) storage */
  updateAdminStorageConfig: {
    path: {
      tenant_id: string;
    };
    body: {
      endpoint?: string | null;
      bucket: string;
      region?: string;
      prefix?: string;
      access_key_id: string;
      secret_access_key: string;
      force_path_style?: boolean;
    };
    response: {
      tenant_id: string;
      current_provider: string;
      write_provider: string;
      read_providers: string[];
      available_targets: string[];
      targets: {
        shared: {
          configured: boolean;
        };
        dedicated: {
          configured: boolean;
          location: string | null;
        };
        customer: {
          configured: boolean;
          endpoint?: string | null;
          bucket?: string;
          region?: string;
          prefix?: string;
          access_key_id?: string;
          secret_access_key?: string;
          force_path_style?: boolean;
          verified_at?: string;
        };
      };
    };
  };
  /** Update a tenant */
  updateAdminTenant: {
    path: {
      tenant_id: string;
    };
    body: {
      name?: string;
      tier?: "free" | "starter" | "pro" | "team" | "enterprise";
      status?: "active" | "suspended";
      cors_origins?: string[];
    };
    response: {
      id: string;
      name: string;
      subdomain: string;
      tier: string;
      status: string;
      cors_origins: string[];
      created_at: string;
      updated_at: string;
    };
  };
  /** Update a workflow */
  updateDagWorkflow: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      description?: string;
      status?: "draft" | "active" | "paused";
      trigger?: {
        type: string;
        conditions?: {
          [key: string]: unknown;
        };
      };
      nodes?: {
        id: string;
        type: string;
        config?: {
          [key: string]: unknown;
        };
        depends_on?: string[];
        run_if?: string;
        trigger_rule?: "all_success" | "all_done" | "one_success" | "one_failed" | "none_failed_min_one_success";
        timeout_seconds?: number;
        timeout_hours?: number;
        retry?: {
          max_attempts: number;
          backoff_seconds?: number;
        };
        position?: {
          x: number;
          y: number;
        };
      }[];
      error_handling?: {
        on_failure?: "fail" | "pause" | "continue";
        notify_on_failure?: string[];
      };
    };
    response: {
      id: string;
      name: string;
      description: string;
      status: string;
      version: number;
      trigger: unknown;
      nodes: unknown;
      error_handling: unknown;
      statistics?: unknown;
      created_at: string;
      updated_at: string;
    };
  };
  /** Update a document */
  updateDocument: {
    path: {
      id: string;
    };
    body: {
      filename?: string;
      folder_id?: string | null;
      tags?: string[];
    };
    response: {
      id: string;
      filename: string;
      original_filename: string;
      file_type: string;
      file_size: number;
      folder_id: string | null;
      status: string;
      ai_status: string;
      ai_summary: string | null;
      ai_tags: string[];
      ai_document_type: {
        value: string;
        confidence: number;
        confirmed?: true;
      } | null;
      tags: string[];
      created_at: string;
      updated_at: string;
      processing_progress: {
        stage: string;
        pages_done: number | null;
        pages_total: number | null;
      } | null;
      storage_path: string;
      thumbnail_url: string;
      ai_thumbnail_url: string | null;
      entities: {
        people: string[];
        organizations: string[];
        dates: string[];
        locations: string[];
        amounts: {
          value: number;
          currency: string;
          text: string;
          confidence: number | null;
        }[];
        details: {
          people: {
            name: string;
            confidence: number;
          }[];
          organizations: {
            name: string;
            confidence: number;
          }[];
          locations: {
            name: string;
            confidence: number;
          }[];
          dates: {
            value: string;
            text: string;
            confidence: number;
            alternatives?: string[];
          }[];
        } | null;
      };
      ai_summary_confidence: number | null;
      ai_fields: {
        [key: string]: {
          value: string | string[] | {
            value: number;
            currency: string;
            text: string;
            period?: string;
          } | {
            value: string;
            text: string;
          };
          confidence: number;
          confirmed?: true;
        };
      };
      ai_tag_details: {
        name: string;
        confidence: number | null;
        source: string;
      }[];
      ai_review: {
        task_id: string;
        pending: string[];
      } | null;
      metadata: {
        [key: string]: unknown;
      };
      processing_error: {
        stage: string;
        message: string;
      } | null;
    };
  };
  /** Update or move a folder */
  updateFolder: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      color?: string;
      icon?: string;
      parent_id?: string | null;
    };
    response: {
      id: string;
      name: string;
      parent_id: string | null;
      color: string;
      icon: string;
      document_count?: number;
      created_at: string;
      updated_at?: string;
    };
  };
  /** Change the tenant's mail settings */
  updateMailSettings: {
    body: {
      sender_name: string | null;
    };
    response: {
      sender_name: string | null;
    };
  };
  /** Update an import project */
  updateMigrationsProject: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      description?: string | null;
      config?: {
        folder_ids?: string[];
        credentials?: {
          access_token: string;
          refresh_token?: string;
          client_id?: string;
          client_secret?: string;
        };
        target_folder_id?: string | null;
        enable_ai?: boolean;
        filters?: {
          include_types?: string[];
          exclude_types?: string[];
          max_file_size_bytes?: number | null;
          exclude_patterns?: string[];
          include_shared?: boolean;
        };
        export_formats?: {
          document?: "pdf" | "docx" | "odt" | "txt" | "html";
          spreadsheet?: "xlsx" | "ods" | "csv" | "pdf";
          presentation?: "pdf" | "pptx" | "odp";
          drawing?: "pdf" | "png" | "svg";
        };
      };
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      source_type: string;
      status: "draft" | "configured" | "scanning" | "ready" | "in_progress" | "paused" | "completed" | "completed_with_errors" | "cancelled" | "failed";
      config: {
        folder_ids: string[];
        target_folder_id: string | null;
        enable_ai: boolean;
        filters: {
          include_types: string[];
          exclude_types: string[];
          max_file_size_bytes: number | null;
          exclude_patterns: string[];
          include_shared: boolean;
        };
        export_formats: {
          document: string;
          spreadsheet: string;
          presentation: string;
          drawing: string;
        };
        has_credentials: boolean;
      };
      total_items: number;
      processed_items: number;
      failed_items: number;
      skipped_items: number;
      progress_percent: number;
      error: string | null;
      scanned_at: string | null;
      started_at: string | null;
      completed_at: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Rename or change a saved view */
  updateSavedView: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      folder_id?: string | null;
      filters?: {
        [key: string]: string;
      };
    };
    response: {
      id: string;
      name: string;
      folder_id: string | null;
      filters: {
        [key: string]: string;
      };
      created_at: string;
      updated_at: string;
    };
  };
  /** Change the tenant's settings */
  updateTenantSettings: {
    body: {
      ai_review_threshold?: number | null;
    };
    response: {
      ai_review_threshold: number | null;
    };
  };
  /** Update a user */
  updateUser: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      email?: string;
      notification_mail?: boolean;
      role?: "owner" | "admin" | "member" | "viewer";
      roles?: string[];
      status?: "active" | "disabled";
    };
    response: {
      id: string;
      email: string;
      name: string;
      role: string;
      roles: string[];
      status: string;
      notification_mail: boolean;
      invitation: {
        status: string;
        last_error: string | null;
        created_at: string;
        sent_at: string | null;
      } | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Update a webhook */
  updateWebhook: {
    path: {
      id: string;
    };
    body: {
      url?: string;
      events?: string[];
      status?: "active" | "paused";
    };
    response: {
      id: string;
      url: string;
      events: string[];
      status: "active" | "paused" | "disabled";
      status_reason: string | null;
      created_at: string;
      updated_at: string;
    };
  };
  /** Update a workspace */
  updateWorkspace: {
    path: {
      id: string;
    };
    body: {
      name?: string;
      description?: string | null;
    };
    response: {
      id: string;
      name: string;
      description: string | null;
      created_by: string | null;
      member_count: number;
      created_at: string;
      updated_at: string;
      members: {
        user_id: string;
        name: string;
        email: string;
        role: string;
        added_at: string;
      }[];
    };
  };
  /** Upload a document */
  uploadDocument: {
    multipart: {
      file: Blob;
      on_duplicate?: "store" | "skip";
      folder_id?: string;
      enable_ai?: boolean;
      tags?: string[];
      filename?: string;
    };
    response: {
      id: string;
      filename: string;
      status: string;
      ai_status: string;
      created_at: string;
      duplicate_of?: string;
    };
  };
  /** Upload a batch of up to 10 documents */
  uploadDocumentBatch: {
    multipart: {
      "files[]": Blob[];
      on_duplicate?: "store" | "skip";
      folder_id?: string;
      enable_ai?: boolean;
      tags?: string[];
    };
    response: {
      collection_id: string;
      batch_job_id: string;
      documents: {
        id: string;
        filename: string;
        status: string;
        ai_status: string;
        duplicate_of?: string;
      }[];
      rejected: {
        filename: string;
        error: string;
        code: string;
        message: string;
      }[];
      skipped?: {
        filename: string;
        duplicate_of: string;
      }[];
    };
  };
  /** Upload a new version of a document */
  uploadDocumentVersion: {
    path: {
      id: string;
    };
    multipart: {
      file: Blob;
      filename?: string;
    };
    response: {
      document_id: string;
      number: number;
      current: boolean;
      filename: string;
      file_type: string;
      file_size: number;
      sha256: string;
      created_at: string;
      created_by: string | null;
      created: boolean;
      status: string;
      ai_status: string;
    };
  };
  /** Validate a workflow definition without saving it */
  validateWorkflowDraft: {
    body: {
      nodes: {
        id: string;
        type: string;
        config?: {
          [key: string]: unknown;
        };
        depends_on?: string[];
        run_if?: string;
        trigger_rule?: "all_success" | "all_done" | "one_success" | "one_failed" | "none_failed_min_one_success";
        timeout_seconds?: number;
        timeout_hours?: number;
        retry?: {
          max_attempts: number;
          backoff_seconds?: number;
        };
        position?: {
          x: number;
          y: number;
        };
      }[];
      trigger?: {
        type: string;
        conditions?: {
          [key: string]: unknown;
        };
      };
      error_handling?: {
        on_failure?: "fail" | "pause" | "continue";
        notify_on_failure?: string[];
      };
    };
    response: {
      valid: boolean;
      errors: string[];
      warnings: string[];
      issues: {
        severity: "error" | "warning";
        code: string;
        message: string;
        node_id?: string;
        field?: string;
      }[];
    };
  };
}

/** Method, path, whether it takes an Idempotency-Key, and how it answers. */
export const OPERATIONS = {
  applyDocumentAiTags: { method: 'POST', path: '/api/v1/documents/{id}/apply-ai-tags', idempotencyKey: true, answers: 'json' },
  askChatSession: { method: 'POST', path: '/api/v1/chat/sessions/{id}/ask', idempotencyKey: true, answers: 'json' },
  cancelAdminStorageMigration: { method: 'POST', path: '/api/v1/admin/storage/migrations/{migration_id}/cancel', idempotencyKey: true, answers: 'json' },
  cancelDagExecution: { method: 'POST', path: '/api/v1/dag/executions/{id}/cancel', idempotencyKey: true, answers: 'json' },
  cancelMigrationsProject: { method: 'POST', path: '/api/v1/migrations/projects/{id}/cancel', idempotencyKey: true, answers: 'json' },
  changeAuthPassword: { method: 'POST', path: '/api/v1/auth/password/change', idempotencyKey: true, answers: 'json' },
  createAdminTenant: { method: 'POST', path: '/api/v1/admin/tenants', idempotencyKey: true, answers: 'json' },
  createApiKey: { method: 'POST', path: '/api/v1/api-keys', idempotencyKey: true, answers: 'json' },
  createChatSession: { method: 'POST', path: '/api/v1/chat/sessions', idempotencyKey: true, answers: 'json' },
  createDagHook: { method: 'POST', path: '/api/v1/dag/hooks/{id}', idempotencyKey: false, answers: 'json' },
  createDagWorkflow: { method: 'POST', path: '/api/v1/dag/workflows', idempotencyKey: true, answers: 'json' },
  createFolder: { method: 'POST', path: '/api/v1/folders', idempotencyKey: true, answers: 'json' },
  createLegalHold: { method: 'POST', path: '/api/v1/legal-holds', idempotencyKey: true, answers: 'json' },
  createMcpServer: { method: 'POST', path: '/api/v1/mcp/servers', idempotencyKey: true, answers: 'json' },
  createMigrationsProject: { method: 'POST', path: '/api/v1/migrations/projects', idempotencyKey: true, answers: 'json' },
  createMigrationsProjectAgent: { method: 'POST', path: '/api/v1/migrations/projects/{id}/agents', idempotencyKey: true, answers: 'json' },
  createRetentionRule: { method: 'POST', path: '/api/v1/retention-rules', idempotencyKey: true, answers: 'json' },
  createSavedView: { method: 'POST', path: '/api/v1/saved-views', idempotencyKey: true, answers: 'json' },
  createTag: { method: 'POST', path: '/api/v1/tags', idempotencyKey: true, answers: 'json' },
  createUser: { method: 'POST', path: '/api/v1/users', idempotencyKey: true, answers: 'json' },
  createWebhook: { method: 'POST', path: '/api/v1/webhooks', idempotencyKey: true, answers: 'json' },
  createWorkspace: { method: 'POST', path: '/api/v1/workspaces', idempotencyKey: true, answers: 'json' },
  createWorkspaceMember: { method: 'POST', path: '/api/v1/workspaces/{id}/members', idempotencyKey: true, answers: 'json' },
  deleteApiKey: { method: 'DELETE', path: '/api/v1/api-keys/{id}', idempotencyKey: true, answers: 'json' },
  deleteAuthSession: { method: 'DELETE', path: '/api/v1/auth/sessions/{id}', idempotencyKey: true, answers: 'json' },
  deleteChatSession: { method: 'DELETE', path: '/api/v1/chat/sessions/{id}', idempotencyKey: true, answers: 'json' },
  deleteDagWorkflow: { method: 'DELETE', path: '/api/v1/dag/workflows/{id}', idempotencyKey: true, answers: 'json' },
  deleteDocument: { method: 'DELETE', path: '/api/v1/documents/{id}', idempotencyKey: true, answers: 'json' },
  deleteDocumentShare: { method: 'DELETE', path: '/api/v1/documents/{id}/shares/{share_id}', idempotencyKey: true, answers: 'json' },
  deleteFolder: { method: 'DELETE', path: '/api/v1/folders/{id}', idempotencyKey: true, answers: 'json' },
  deleteLegalHold: { method: 'DELETE', path: '/api/v1/legal-holds/{id}', idempotencyKey: true, answers: 'json' },
  deleteMcpServer: { method: 'DELETE', path: '/api/v1/mcp/servers/{id}', idempotencyKey: true, answers: 'json' },
  deleteMigrationsProject: { method: 'DELETE', path: '/api/v1/migrations/projects/{id}', idempotencyKey: true, answers: 'json' },
  deleteRetentionRule: { method: 'DELETE', path: '/api/v1/retention-rules/{id}', idempotencyKey: true, answers: 'json' },
  deleteSavedView: { method: 'DELETE', path: '/api/v1/saved-views/{id}', idempotencyKey: true, answers: 'json' },
  deleteTag: { method: 'DELETE', path: '/api/v1/tags/{id}', idempotencyKey: true, answers: 'json' },
  deleteUser: { method: 'DELETE', path: '/api/v1/users/{id}', idempotencyKey: true, answers: 'json' },
  deleteWebhook: { method: 'DELETE', path: '/api/v1/webhooks/{id}', idempotencyKey: true, answers: 'json' },
  deleteWorkspace: { method: 'DELETE', path: '/api/v1/workspaces/{id}', idempotencyKey: true, answers: 'json' },
  deleteWorkspaceMember: { method: 'DELETE', path: '/api/v1/workspaces/{id}/members/{user_id}', idempotencyKey: true, answers: 'json' },
  downloadAdminTenantExport: { method: 'GET', path: '/api/v1/admin/tenants/{tenant_id}/exports/{export_id}/download', idempotencyKey: false, answers: 'binary' },
  downloadDocument: { method: 'GET', path: '/api/v1/documents/{id}/download', idempotencyKey: false, answers: 'binary' },
  downloadDocumentVersion: { method: 'GET', path: '/api/v1/documents/{id}/versions/{number}/download', idempotencyKey: false, answers: 'binary' },
  downloadExport: { method: 'GET', path: '/api/v1/exports/{id}/download', idempotencyKey: false, answers: 'binary' },
  exportAdminTenant: { method: 'POST', path: '/api/v1/admin/tenants/{tenant_id}/export', idempotencyKey: true, answers: 'json' },
  exportAudit: { method: 'GET', path: '/api/v1/audit/export', idempotencyKey: false, answers: 'binary' },
  exportTenant: { method: 'POST', path: '/api/v1/tenant/export', idempotencyKey: true, answers: 'json' },
  forgotAuthPassword: { method: 'POST', path: '/api/v1/auth/password/forgot', idempotencyKey: false, answers: 'json' },
  getAdminMail: { method: 'GET', path: '/api/v1/admin/mail', idempotencyKey: false, answers: 'json' },
  getAdminStorageConfig: { method: 'GET', path: '/api/v1/admin/storage/config/{tenant_id}', idempotencyKey: false, answers: 'json' },
  getAdminStorageMigration: { method: 'GET', path: '/api/v1/admin/storage/migrations/{tenant_id}', idempotencyKey: false, answers: 'json' },
  getAdminStorageMigrationFailed: { method: 'GET', path: '/api/v1/admin/storage/migrations/{migration_id}/failed', idempotencyKey: false, answers: 'json' },
  getAdminStorageMigrationHistory: { method: 'GET', path: '/api/v1/admin/storage/migrations/{tenant_id}/history', idempotencyKey: false, answers: 'json' },
  getAdminTenant: { method: 'GET', path: '/api/v1/admin/tenants/{tenant_id}', idempotencyKey: false, answers: 'json' },
  getAdminTenantExport: { method: 'GET', path: '/api/v1/admin/tenants/{tenant_id}/exports/{export_id}', idempotencyKey: false, answers: 'json' },
  getAudit: { method: 'GET', path: '/api/v1/audit', idempotencyKey: false, answers: 'json' },
  getAuthCsrf: { method: 'GET', path: '/api/v1/auth/csrf', idempotencyKey: false, answers: 'json' },
  getAuthMe: { method: 'GET', path: '/api/v1/auth/me', idempotencyKey: false, answers: 'json' },
  getBatchJob: { method: 'GET', path: '/api/v1/batch-jobs/{id}', idempotencyKey: false, answers: 'json' },
  getChatSession: { method: 'GET', path: '/api/v1/chat/sessions/{id}', idempotencyKey: false, answers: 'json' },
  getDagExecution: { method: 'GET', path: '/api/v1/dag/executions/{id}', idempotencyKey: false, answers: 'json' },
  getDagTask: { method: 'GET', path: '/api/v1/dag/tasks/{id}', idempotencyKey: false, answers: 'json' },
  getDagWorkflow: { method: 'GET', path: '/api/v1/dag/workflows/{id}', idempotencyKey: false, answers: 'json' },
  getDocument: { method: 'GET', path: '/api/v1/documents/{id}', idempotencyKey: false, answers: 'json' },
  getDocumentContent: { method: 'GET', path: '/api/v1/documents/{id}/content', idempotencyKey: false, answers: 'json' },
  getDocumentThumbnail: { method: 'GET', path: '/api/v1/documents/{id}/thumbnail', idempotencyKey: false, answers: 'binary' },
  getExport: { method: 'GET', path: '/api/v1/exports/{id}', idempotencyKey: false, answers: 'json' },
  getFolder: { method: 'GET', path: '/api/v1/folders/{id}', idempotencyKey: false, answers: 'json' },
  getHealth: { method: 'GET', path: '/health', idempotencyKey: false, answers: 'json' },
  getHealthz: { method: 'GET', path: '/healthz', idempotencyKey: false, answers: 'json' },
  getLegalHold: { method: 'GET', path: '/api/v1/legal-holds/{id}', idempotencyKey: false, answers: 'json' },
  getMcpServer: { method: 'GET', path: '/api/v1/mcp/servers/{id}', idempotencyKey: false, answers: 'json' },
  getMigrationsProject: { method: 'GET', path: '/api/v1/migrations/projects/{id}', idempotencyKey: false, answers: 'json' },
  getMigrationsProjectProgress: { method: 'GET', path: '/api/v1/migrations/projects/{id}/progress', idempotencyKey: false, answers: 'json' },
  getOpenApiDocument: { method: 'GET', path: '/api/v1/openapi.json', idempotencyKey: false, answers: 'json' },
  getReadyz: { method: 'GET', path: '/readyz', idempotencyKey: false, answers: 'json' },
  getRetentionRule: { method: 'GET', path: '/api/v1/retention-rules/{id}', idempotencyKey: false, answers: 'json' },
  getSavedView: { method: 'GET', path: '/api/v1/saved-views/{id}', idempotencyKey: false, answers: 'json' },
  getSubscriptionCheckout: { method: 'GET', path: '/api/v1/subscription/checkouts/{checkout_id}', idempotencyKey: false, answers: 'json' },
  getSubscriptionHistory: { method: 'GET', path: '/api/v1/subscription/history', idempotencyKey: false, answers: 'json' },
  getSubscriptionStatus: { method: 'GET', path: '/api/v1/subscription/status', idempotencyKey: false, answers: 'json' },
  getUser: { method: 'GET', path: '/api/v1/users/{id}', idempotencyKey: false, answers: 'json' },
  getWebhook: { method: 'GET', path: '/api/v1/webhooks/{id}', idempotencyKey: false, answers: 'json' },
  getWorkspace: { method: 'GET', path: '/api/v1/workspaces/{id}', idempotencyKey: false, answers: 'json' },
  importAdminTenants: { method: 'POST', path: '/api/v1/admin/tenants/import', idempotencyKey: true, answers: 'json' },
  listAdminTenants: { method: 'GET', path: '/api/v1/admin/tenants', idempotencyKey: false, answers: 'json' },
  listApiKeys: { method: 'GET', path: '/api/v1/api-keys', idempotencyKey: false, answers: 'json' },
  listAuthSessions: { method: 'GET', path: '/api/v1/auth/sessions', idempotencyKey: false, answers: 'json' },
  listBatchJobs: { method: 'GET', path: '/api/v1/batch-jobs', idempotencyKey: false, answers: 'json' },
  listChatSessionMessages: { method: 'GET', path: '/api/v1/chat/sessions/{id}/messages', idempotencyKey: false, answers: 'json' },
  listChatSessions: { method: 'GET', path: '/api/v1/chat/sessions', idempotencyKey: false, answers: 'json' },
  listDagExecutions: { method: 'GET', path: '/api/v1/dag/executions', idempotencyKey: false, answers: 'json' },
  listDagTasks: { method: 'GET', path: '/api/v1/dag/tasks', idempotencyKey: false, answers: 'json' },
  listDagWorkflows: { method: 'GET', path: '/api/v1/dag/workflows', idempotencyKey: false, answers: 'json' },
  listDocumentShares: { method: 'GET', path: '/api/v1/documents/{id}/shares', idempotencyKey: false, answers: 'json' },
  listDocumentVersions: { method: 'GET', path: '/api/v1/documents/{id}/versions', idempotencyKey: false, answers: 'json' },
  listDocuments: { method: 'GET', path: '/api/v1/documents', idempotencyKey: false, answers: 'json' },
  listFolders: { method: 'GET', path: '/api/v1/folders', idempotencyKey: false, answers: 'json' },
  listLegalHolds: { method: 'GET', path: '/api/v1/legal-holds', idempotencyKey: false, answers: 'json' },
  listMailSettings: { method: 'GET', path: '/api/v1/mail/settings', idempotencyKey: false, answers: 'json' },
  listMcpServerTools: { method: 'GET', path: '/api/v1/mcp/servers/{id}/tools', idempotencyKey: false, answers: 'json' },
  listMcpServers: { method: 'GET', path: '/api/v1/mcp/servers', idempotencyKey: false, answers: 'json' },
  listMigrationsProjectAgentRuns: { method: 'GET', path: '/api/v1/migrations/projects/{id}/agent-runs', idempotencyKey: false, answers: 'json' },
  listMigrationsProjectAgents: { method: 'GET', path: '/api/v1/migrations/projects/{id}/agents', idempotencyKey: false, answers: 'json' },
  listMigrationsProjectItems: { method: 'GET', path: '/api/v1/migrations/projects/{id}/items', idempotencyKey: false, answers: 'json' },
  listMigrationsProjects: { method: 'GET', path: '/api/v1/migrations/projects', idempotencyKey: false, answers: 'json' },
  listRetentionRules: { method: 'GET', path: '/api/v1/retention-rules', idempotencyKey: false, answers: 'json' },
  listSavedViews: { method: 'GET', path: '/api/v1/saved-views', idempotencyKey: false, answers: 'json' },
  listTags: { method: 'GET', path: '/api/v1/tags', idempotencyKey: false, answers: 'json' },
  listTenantSettings: { method: 'GET', path: '/api/v1/tenant/settings', idempotencyKey: false, answers: 'json' },
  listUsers: { method: 'GET', path: '/api/v1/users', idempotencyKey: false, answers: 'json' },
  listWebhookDeliveries: { method: 'GET', path: '/api/v1/webhooks/{id}/deliveries', idempotencyKey: false, answers: 'json' },
  listWebhooks: { method: 'GET', path: '/api/v1/webhooks', idempotencyKey: false, answers: 'json' },
  listWorkflowNodeTypes: { method: 'GET', path: '/api/v1/dag/node-types', idempotencyKey: false, answers: 'json' },
  listWorkspaces: { method: 'GET', path: '/api/v1/workspaces', idempotencyKey: false, answers: 'json' },
  loginAuth: { method: 'POST', path: '/api/v1/auth/login', idempotencyKey: false, answers: 'json' },
  logoutAuth: { method: 'POST', path: '/api/v1/auth/logout', idempotencyKey: true, answers: 'json' },
  pauseDagExecution: { method: 'POST', path: '/api/v1/dag/executions/{id}/pause', idempotencyKey: true, answers: 'json' },
  pauseMigrationsProject: { method: 'POST', path: '/api/v1/migrations/projects/{id}/pause', idempotencyKey: true, answers: 'json' },
  postAdminCheckoutComplete: { method: 'POST', path: '/api/v1/admin/checkouts/{checkout_id}/complete', idempotencyKey: true, answers: 'json' },
  postAdminStorageConfigMigrate: { method: 'POST', path: '/api/v1/admin/storage/config/{tenant_id}/migrate', idempotencyKey: true, answers: 'json' },
  postDagTaskComplete: { method: 'POST', path: '/api/v1/dag/tasks/{id}/complete', idempotencyKey: true, answers: 'json' },
  postDagWorkflowExecute: { method: 'POST', path: '/api/v1/dag/workflows/{id}/execute', idempotencyKey: true, answers: 'json' },
  postDagWorkflowValidate: { method: 'POST', path: '/api/v1/dag/workflows/{id}/validate', idempotencyKey: true, answers: 'json' },
  postMcp: { method: 'POST', path: '/mcp', idempotencyKey: true, answers: 'stream' },
  postMigrationsProjectScan: { method: 'POST', path: '/api/v1/migrations/projects/{id}/scan', idempotencyKey: true, answers: 'json' },
  postSearchEnhanced: { method: 'POST', path: '/api/v1/search/enhanced', idempotencyKey: true, answers: 'json' },
  postSearchHybrid: { method: 'POST', path: '/api/v1/search/hybrid', idempotencyKey: true, answers: 'json' },
  postSubscriptionCheckout: { method: 'POST', path: '/api/v1/subscription/checkout', idempotencyKey: true, answers: 'json' },
  postWebhookSecret: { method: 'POST', path: '/api/v1/webhooks/{id}/secret', idempotencyKey: true, answers: 'json' },
  redeliverWebhookDelivery: { method: 'POST', path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver', idempotencyKey: true, answers: 'json' },
  refreshAuth: { method: 'POST', path: '/api/v1/auth/refresh', idempotencyKey: false, answers: 'json' },
  registerAuth: { method: 'POST', path: '/api/v1/auth/register', idempotencyKey: false, answers: 'json' },
  reprocessDocument: { method: 'POST', path: '/api/v1/documents/{id}/reprocess', idempotencyKey: true, answers: 'json' },
  resetAuthPassword: { method: 'POST', path: '/api/v1/auth/password/reset', idempotencyKey: false, answers: 'json' },
  restoreDocumentVersion: { method: 'POST', path: '/api/v1/documents/{id}/versions/{number}/restore', idempotencyKey: true, answers: 'json' },
  resumeDagExecution: { method: 'POST', path: '/api/v1/dag/executions/{id}/resume', idempotencyKey: true, answers: 'json' },
  resumeMigrationsProject: { method: 'POST', path: '/api/v1/migrations/projects/{id}/resume', idempotencyKey: true, answers: 'json' },
  retryAdminMail: { method: 'POST', path: '/api/v1/admin/mail/{mail_id}/retry', idempotencyKey: true, answers: 'json' },
  retryAdminStorageMigration: { method: 'POST', path: '/api/v1/admin/storage/migrations/{migration_id}/retry', idempotencyKey: true, answers: 'json' },
  rotateApiKey: { method: 'POST', path: '/api/v1/api-keys/{id}/rotate', idempotencyKey: true, answers: 'json' },
  runRetentionRule: { method: 'POST', path: '/api/v1/retention-rules/{id}/run', idempotencyKey: true, answers: 'json' },
  search: { method: 'GET', path: '/api/v1/search', idempotencyKey: false, answers: 'json' },
  shareDocument: { method: 'POST', path: '/api/v1/documents/{id}/share', idempotencyKey: true, answers: 'json' },
  startMigrationsProject: { method: 'POST', path: '/api/v1/migrations/projects/{id}/start', idempotencyKey: true, answers: 'json' },
  testWebhook: { method: 'POST', path: '/api/v1/webhooks/{id}/test', idempotencyKey: true, answers: 'json' },
  updateAdminStorageConfig: { method: 'PUT', path: '/api/v1/admin/storage/config/{tenant_id}', idempotencyKey: true, answers: 'json' },
  updateAdminTenant: { method: 'PATCH', path: '/api/v1/admin/tenants/{tenant_id}', idempotencyKey: true, answers: 'json' },
  updateDagWorkflow: { method: 'PUT', path: '/api/v1/dag/workflows/{id}', idempotencyKey: true, answers: 'json' },
  updateDocument: { method: 'PUT', path: '/api/v1/documents/{id}', idempotencyKey: true, answers: 'json' },
  updateFolder: { method: 'PUT', path: '/api/v1/folders/{id}', idempotencyKey: true, answers: 'json' },
  updateMailSettings: { method: 'PATCH', path: '/api/v1/mail/settings', idempotencyKey: true, answers: 'json' },
  updateMigrationsProject: { method: 'PUT', path: '/api/v1/migrations/projects/{id}', idempotencyKey: true, answers: 'json' },
  updateSavedView: { method: 'PATCH', path: '/api/v1/saved-views/{id}', idempotencyKey: true, answers: 'json' },
  updateTenantSettings: { method: 'PATCH', path: '/api/v1/tenant/settings', idempotencyKey: true, answers: 'json' },
  updateUser: { method: 'PATCH', path: '/api/v1/users/{id}', idempotencyKey: true, answers: 'json' },
  updateWebhook: { method: 'PUT', path: '/api/v1/webhooks/{id}', idempotencyKey: true, answers: 'json' },
  updateWorkspace: { method: 'PUT', path: '/api/v1/workspaces/{id}', idempotencyKey: true, answers: 'json' },
  uploadDocument: { method: 'POST', path: '/api/v1/documents/upload', idempotencyKey: true, answers: 'json' },
  uploadDocumentBatch: { method: 'POST', path: '/api/v1/documents/upload-batch', idempotencyKey: true, answers: 'json' },
  uploadDocumentVersion: { method: 'POST', path: '/api/v1/documents/{id}/versions', idempotencyKey: true, answers: 'json' },
  validateWorkflowDraft: { method: 'POST', path: '/api/v1/dag/workflows/validate', idempotencyKey: true, answers: 'json' },
} as const;

/** The body of each webhook delivery, by event name (docs/webhooks.md; verify it with verifyWebhookSignature). */
export interface WebhookEvents {
  /** The document.uploaded event */
  "document.uploaded": {
    id: string;
    type: "document.uploaded";
    timestamp: string;
    data: {
      document_id: string;
      filename: string;
      folder_id: string | null;
      file_type: string;
      file_size: number;
      status: string;
      ai_status: string;
    };
  };
  /** The document.processed event */
  "document.processed": {
    id: string;
    type: "document.processed";
    timestamp: string;
    data: {
      document_id: string;
      status: string;
      ai_summary: string | null;
      ai_tags: string[];
    };
  };
  /** The document.failed event */
  "document.failed": {
    id: string;
    type: "document.failed";
    timestamp: string;
    data: {
      document_id: string;
      status: string;
      ai_status: string;
      error: {
        stage: string;
        message: string;
      } | null;
    };
  };
  /** The chat.session.created event */
  "chat.session.created": {
    id: string;
    type: "chat.session.created";
    timestamp: string;
    data: {
      session_id: string;
      document_id: string | null;
      name: string | null;
      user_id: string | null;
      scope?: "folder" | "tenant";
      folder_id?: string | null;
    };
  };
  /** The chat.message.created event */
  "chat.message.created": {
    id: string;
    type: "chat.message.created";
    timestamp: string;
    data: {
      message_id: string;
      session_id: string;
      document_id: string | null;
      role: string;
    };
  };
  /** The dag.execution.started event */
  "dag.execution.started": {
    event: "dag.execution.started";
    timestamp: string;
    data: {
      execution_id: string;
      workflow_id: string;
      workflow_name: string;
      status: "running";
      trigger_type: string;
    };
  };
  /** The dag.execution.completed event */
  "dag.execution.completed": {
    event: "dag.execution.completed";
    timestamp: string;
    data: {
      execution_id: string;
      workflow_id: string;
      workflow_name: string;
      status: string;
      duration_seconds: number;
      final_output: unknown;
    };
  };
  /** The dag.execution.failed event */
  "dag.execution.failed": {
    event: "dag.execution.failed";
    timestamp: string;
    data: {
      execution_id: string;
      workflow_id: string;
      workflow_name: string;
      status: "failed";
      error: string;
      failed_node_id: string | null;
    };
  };
  /** The dag.execution.paused event */
  "dag.execution.paused": {
    event: "dag.execution.paused";
    timestamp: string;
    data: {
      execution_id: string;
      workflow_id: string;
      workflow_name: string;
      status: "paused";
      paused_reason: string | null;
    };
  };
  /** The dag.task.created event */
  "dag.task.created": {
    event: "dag.task.created";
    timestamp: string;
    data: {
      task_id: string;
      execution_id: string | null;
      workflow_id: string | null;
      source?: string;
      title: string;
      assignee_type: string;
      assignee_value: string;
      due_at: string | null;
    };
  };
  /** The dag.task.completed event */
  "dag.task.completed": {
    event: "dag.task.completed";
    timestamp: string;
    data: {
      task_id: string;
      execution_id: string | null;
      workflow_id: string | null;
      source?: string;
      decision: string | null;
      completed_by: string | null;
    };
  };
  /** The dag.task.escalated event */
  "dag.task.escalated": {
    event: "dag.task.escalated";
    timestamp: string;
    data: {
      task_id: string;
      execution_id: string | null;
      workflow_id: string | null;
      source?: string;
      escalated_to: string | null;
    };
  };
  /** The subscription.tier_changed event */
  "subscription.tier_changed": {
    id: string;
    type: "subscription.tier_changed";
    timestamp: string;
    data: {
      from_tier: string;
      to_tier: string;
      reason: string;
      changed_by: string | null;
      reference: string | null;
    };
  };
  /** The document.updated event */
  "document.updated": {
    id: string;
    type: "document.updated";
    timestamp: string;
    data: {
      document_id: string;
      fields: string[];
      filename: string;
      folder_id: string | null;
    };
  };
  /** The tenant.export.completed event */
  "tenant.export.completed": {
    id: string;
    type: "tenant.export.completed";
    timestamp: string;
    data: {
      export_id: string;
      status: "completed" | "failed";
      size: number | null;
      sha256: string | null;
      expires_at: string | null;
      error: string | null;
    };
  };
  /** The legal_hold.created event */
  "legal_hold.created": {
    id: string;
    type: "legal_hold.created";
    timestamp: string;
    data: {
      hold_id: string;
      name: string;
      document_ids: string[];
      folder_ids: string[];
    };
  };
  /** The legal_hold.released event */
  "legal_hold.released": {
    id: string;
    type: "legal_hold.released";
    timestamp: string;
    data: {
      hold_id: string;
      name: string;
    };
  };
  /** The retention.document_deleted event */
  "retention.document_deleted": {
    id: string;
    type: "retention.document_deleted";
    timestamp: string;
    data: {
      rule_id: string;
      document_id: string;
      filename: string;
      folder_id: string | null;
    };
  };
  /** The retention.review_requested event */
  "retention.review_requested": {
    id: string;
    type: "retention.review_requested";
    timestamp: string;
    data: {
      rule_id: string;
      document_id: string;
      filename: string;
      task_id: string;
    };
  };
  /** The retention.run_completed event */
  "retention.run_completed": {
    id: string;
    type: "retention.run_completed";
    timestamp: string;
    data: {
      rule_id: string;
      folder_id: string;
      action: string;
      examined: number;
      deleted: number;
      review_requested: number;
      held: number;
    };
  };
  /** The document.version_created event */
  "document.version_created": {
    id: string;
    type: "document.version_created";
    timestamp: string;
    data: {
      document_id: string;
      version: number;
      filename: string;
      file_type: string;
      file_size: number;
      sha256: string;
      created_by: string | null;
    };
  };
  /** The document.version_restored event */
  "document.version_restored": {
    id: string;
    type: "document.version_restored";
    timestamp: string;
    data: {
      document_id: string;
      version: number;
      filename: string;
      file_type: string;
      file_size: number;
      sha256: string;
      created_by: string | null;
      previous_version: number;
    };
  };
  /** The test ping (POST /webhooks/{id}/test) */
  "webhook.test": {
    id: string;
    type: "webhook.test";
    timestamp: string;
    data: {
      webhook_id: string;
      message: string;
    };
  };
}

/** An event a webhook delivery can carry. */
export type WebhookEventName = keyof WebhookEvents;

/** The `data` of an event's delivery. */
export type WebhookEventData<N extends WebhookEventName> = WebhookEvents[N]['data'];
