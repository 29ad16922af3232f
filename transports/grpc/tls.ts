/**
 * The gRPC listener's credentials: cleartext HTTP/2 unless both
 * `--grpc-tls-cert` and `--grpc-tls-key` are given, then TLS with that certificate chain and key.
 * Each flag holds PEM text itself or the path of a PEM file.
 */
import { readFileSync } from 'node:fs';
import { ServerCredentials } from '@grpc/grpc-js';
import type { Config } from '../../core/config.js';

export interface GrpcTlsOptions {
  /** PEM text or a file path: the certificate chain, leaf first. */
  cert: string;
  /** PEM text or a file path: the private key of the leaf certificate. */
  key: string;
}

/** The TLS flags, or null when they are not given (plaintext). */
export function grpcTlsOf(config: Config): GrpcTlsOptions | null {
  const cert = config.string('grpc-tls-cert');
  const key = config.string('grpc-tls-key');
  return cert && key ? { cert, key } : null;
}

/** PEM text as given, or the contents of the file the value names. */
export function pemOf(value: string, what: string): Buffer {
  if (value.includes('-----BEGIN ')) return Buffer.from(value);
  try {
    return readFileSync(value);
  } catch (err) {
    throw new Error(`${what}: cannot read ${value}: ${(err as Error).message}`);
  }
}

export function serverCredentials(tls: GrpcTlsOptions | null | undefined): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  const cert = pemOf(tls.cert, '--grpc-tls-cert');
  const key = pemOf(tls.key, '--grpc-tls-key');
  // No client certificates are asked for: callers authenticate with metadata, as over cleartext.
  return ServerCredentials.createSsl(null, [{ cert_chain: cert, private_key: key }], false);
}
