import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Serialize = (data: unknown) => string;
type RouteSchema = Parameters<ReturnType<ReturnType<typeof SerializerSelector>>>[0];

/**
 * Fastify's own serializer factory (fast-json-stringify), with each route's serialiser built on
 * the route's first answer instead of at start: building every response schema of every route up
 * front is a good part of the idle process's memory (issue 10 item 5), spent on routes a given
 * deployment may never answer. The first answer of a route pays its build once (about a millisecond).
 */
export function lazySerializers(externalSchemas: unknown, serializerOptions: unknown) {
  const build = SerializerSelector()(externalSchemas as never, serializerOptions as never);
  return (routeSchema: RouteSchema): Serialize => {
    let serialize: Serialize | null = null;
    return (data) => {
      serialize ??= build(routeSchema) as Serialize;
      return serialize(data);
    };
  };
}
