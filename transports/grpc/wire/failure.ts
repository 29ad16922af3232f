/** A call that ends with a transport-level gRPC status (bad framing, size, deadline, unknown method). */
export class GrpcFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Extra response headers (for example `grpc-accept-encoding` with UNIMPLEMENTED). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = 'GrpcFailure';
  }
}
