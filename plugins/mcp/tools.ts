/**
 * The MCP tools are the operations marked `mcp: true`: each tool's input
 * schema is the REST request schema of the operation of the same name, and a call runs that
 * operation through the kernel like any transport. A new operation marked for MCP becomes a tool
 * without code here.
 */
import type { Kernel } from '../../core/kernel.js';
import type { RequestContext } from '../../core/context.js';
import { ServiceError, toServiceError, type ErrorCode } from '../../core/errors.js';

export interface ToolDescription {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
}

export function listTools(kernel: Kernel): ToolDescription[] {
  const tools: ToolDescription[] = [];
  for (const op of kernel.operations.values()) {
    if (!op.def.mcp) continue;
    const input = op.def.input ? (JSON.parse(JSON.stringify(op.def.input)) as Record<string, unknown>) : {};
    tools.push({
      name: op.def.name,
      description: op.def.description,
      inputSchema: { ...input, type: 'object' },
    });
  }
  return tools;
}

/** Messages mirror gRPC status names. */
const STATUS_NAMES: Partial<Record<ErrorCode, string>> = {
  invalid_argument: 'InvalidArgument',
  unauthenticated: 'Unauthenticated',
  permission_denied: 'PermissionDenied',
  not_found: 'NotFound',
  already_exists: 'AlreadyExists',
  failed_precondition: 'FailedPrecondition',
  resource_exhausted: 'ResourceExhausted',
  unimplemented: 'Unimplemented',
  unavailable: 'Unavailable',
};

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Runs a tool: a failure is a tool result with `isError`, never a protocol abort. */
export async function callTool(ctx: RequestContext, name: string, args: unknown): Promise<ToolResult> {
  const op = ctx.kernel.operations.get(name);
  try {
    if (!op || !op.def.mcp) throw new ServiceError('not_found', `unknown tool ${name}`);
    const out = await ctx.kernel.invokeCompiled(op, ctx, op.def.input ? (args ?? {}) : undefined);
    const structured = (out ?? {}) as Record<string, unknown>;
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (err) {
    const e = toServiceError(err);
    const status = STATUS_NAMES[e.code] ?? 'Internal';
    return { content: [{ type: 'text', text: `${status}: ${e.message}` }], isError: true };
  }
}
