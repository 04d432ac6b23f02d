/** One AI credit charge (docs/api-decisions.md §5). */
export interface AiCreditChargesTable {
  id: string;
  tenant_id: string;
  /** The billing month, `YYYY-MM` (UTC). */
  period: string;
  /** Thousandths of a credit. */
  millicredits: number;
  /** `semantic_search`, `hybrid_search`, `enhanced_search`, `chat_ask`, ... */
  reason: string;
  /** What was charged for (a chat message id, a query hash), when there is one. */
  reference: string | null;
  created_at: number;
}

declare module '../../db/schema.ts' {
  interface DB {
    ai_credit_charges: AiCreditChargesTable;
  }
}
