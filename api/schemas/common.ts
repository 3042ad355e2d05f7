import { z } from 'zod';

export const Instant = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/).meta({ description: 'RFC 3339 UTC instant, whole seconds, ending in Z', example: '2026-11-22T09:30:00Z' });
