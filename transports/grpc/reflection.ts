/**
 * Server reflection (grpc/doc/server-reflection.md, v1 and v1alpha) from @grpc/reflection, built
 * from the same package definition as the generated services, so `grpcurl` and other tools see
 * exactly the methods and messages served. The health service is listed too.
 */
import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import type { PackageDefinition } from '@grpc/proto-loader';

export function addReflection(server: Server, definition: PackageDefinition): void {
  new ReflectionService(definition).addToServer(server);
}
