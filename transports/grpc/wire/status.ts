/**
 * gRPC status codes (grpc/doc/statuscodes.md) that the transport itself produces; the kernel's
 * own errors carry theirs in core/errors.ts. `grpc-message` is percent-encoded UTF-8
 * (PROTOCOL-HTTP2.md, "Status-Message"): bytes outside 0x20-0x7E, and '%' itself, become %XX.
 */
export const GRPC_STATUS = {
  OK: 0,
  CANCELLED: 1,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

const PLAIN = /^[\x20-\x24\x26-\x7e]*$/;

export function encodeStatusMessage(message: string): string {
  if (PLAIN.test(message)) return message;
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
