/**
 * Fastify encapsulates each plugin: hooks and decorators stay inside it. A plugin marked with
 * `skip-override` (what the fastify-plugin package does) adds them to the context that registers
 * it instead, as documented in Fastify's Plugins guide. Used for hooks meant for a whole folder of
 * routes (auth, rate limit) and for the app itself.
 */
import type { FastifyPluginAsync, FastifyPluginOptions } from 'fastify';

/** Marks a plugin so that its hooks and decorators apply to the registering context. */
export function shared<Options extends FastifyPluginOptions = Record<never, never>>(
  plugin: FastifyPluginAsync<Options>,
): FastifyPluginAsync<Options> {
  return Object.assign(plugin, { [Symbol.for('skip-override')]: true });
}
