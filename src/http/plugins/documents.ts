/**
 * The documents a customer's lawyer asks for, served by the product itself so the dashboard can
 * link them wherever Mailvet runs: `GET /docs/data-protection.md`, the repository's
 * `docs/data-protection.md` as plain text (what is stored, for how long, erasure, export, backups,
 * what a data-processing agreement should say). Read once, on first request; a checkout without
 * the file answers 404.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync } from 'fastify';
import { ApiError } from '../errors.ts';

// This file is src/http/plugins/ under tsx and dist/cli/chunks/ once bundled (scripts/bundle.mjs
// keeps it at that depth): the repository root is three folders up from either.
const DATA_PROTECTION = fileURLToPath(new URL('../../../docs/data-protection.md', import.meta.url));

/** Where the dashboard links the data protection document. */
export const DATA_PROTECTION_PATH = '/docs/data-protection.md';

export const documentRoutes: FastifyPluginAsync<{ dataProtectionFile?: string }> = async (app, options) => {
  let text: Promise<string | null> | undefined;
  app.get(DATA_PROTECTION_PATH, { schema: { hide: true } }, async (_request, reply) => {
    text ??= readFile(options.dataProtectionFile ?? DATA_PROTECTION, 'utf8').catch(() => null);
    const document = await text;
    if (document === null) throw new ApiError('not_found', { message: 'No such document here' });
    reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-cache');
    return document;
  });
};
