/**
 * The `grpc-timeout` request header (PROTOCOL-HTTP2.md, "Timeout"): at most eight ASCII digits
 * and a unit, H M S m u n. Returns milliseconds, or undefined when the header is absent; a
 * malformed value is the caller's mistake and fails the call rather than running without a deadline.
 */
import { GrpcFailure } from './failure.js';
import { GRPC_STATUS } from './status.js';

const UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 0.001, n: 0.000_001 };
const FORMAT = /^(\d{1,8})([HMSmun])$/;

export function parseTimeout(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const match = typeof header === 'string' ? FORMAT.exec(header) : null;
  if (!match)
    throw new GrpcFailure(GRPC_STATUS.INVALID_ARGUMENT, `invalid grpc-timeout value ${JSON.stringify(header)}`);
  // Node's timers hold at most 2^31-1 ms (~24.8 days) and turn anything longer into 1 ms, which
  // failed a legal `99999999H` at once (review finding): a deadline that far away is no deadline.
  const ms = Number(match[1]) * UNIT_MS[match[2]];
  return ms > MAX_TIMER_MS ? undefined : ms;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
