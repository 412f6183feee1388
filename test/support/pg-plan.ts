// A PostgreSQL plan as EXPLAIN (FORMAT JSON) gives it, and every node of it, for tests that read plans.
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  /** With ANALYZE only. */
  "Actual Loops": number;
  "Recheck Cond"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

export function* planNodes(node: PlanNode): Generator<PlanNode> {
  yield node;
  for (const child of node.Plans ?? []) yield* planNodes(child);
}
