import { z } from 'zod'

/** The bodies of /v1/profiles; the OpenAPI document is generated from them. */

export const ProfileInfoSchema = z.object({
  name: z.string(),
  domains: z
    .array(z.string())
    .describe('Sites the profile holds state for: cookie domains and origin hosts.'),
  size: z.number().int().describe('Bytes of its state.'),
  updatedAt: z.string(),
  lastRunId: z.string().optional().describe('The run that saved it last; absent when it was imported.'),
})

export const ProfileListSchema = z.object({ profiles: z.array(ProfileInfoSchema) })

const CookieSchema = z.object({
  name: z.string().min(1),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string().default('/'),
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
})

const OriginSchema = z.object({
  origin: z.string().min(1),
  localStorage: z.array(z.object({ name: z.string(), value: z.string() })).default([]),
  indexedDB: z.array(z.unknown()).optional(),
})

/** A Playwright storage-state JSON (`context.storageState()`), as imported and exported. */
export const ProfileStateSchema = z
  .object({
    cookies: z.array(CookieSchema).max(10_000).default([]),
    origins: z.array(OriginSchema).max(1_000).default([]),
  })
  .describe(
    'A Playwright storage state: `{ cookies, origins }`, as `browserContext.storageState()` writes it.',
  )
