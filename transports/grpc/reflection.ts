/**
 * Server reflection (grpc/doc/server-reflection.md, v1 and v1alpha) from @grpc/reflection. The
 * package registers its services through `addToServer(server)`, which needs only `addService`;
 * this collects the registered methods as streaming methods for our HTTP/2 server, so the
 * descriptors it serves are built from the same package definition as the services.
 */
import { ReflectionService } from '@grpc/reflection';
import type { MethodDefinition, PackageDefinition } from '@grpc/proto-loader';
import type { StreamCall, StreamingMethod } from './stream-call.js';

type Handler = (call: StreamCall) => void;

export function reflectionMethods(definition: PackageDefinition): StreamingMethod[] {
  const methods: StreamingMethod[] = [];
  new ReflectionService(definition).addToServer({
    addService(service, implementation) {
      for (const [name, def] of Object.entries(service as Record<string, MethodDefinition<unknown, unknown>>)) {
        methods.push({
          path: def.path,
          deserialize: (bytes) => def.requestDeserialize(bytes),
          serialize: (value) => def.responseSerialize(value),
          handle: implementation[name] as unknown as Handler,
        });
      }
    },
  });
  return methods;
}
