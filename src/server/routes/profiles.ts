import { Hono } from 'hono'
import { describeRoute } from 'hono-openapi'
import { InvalidProfileNameError, type ProfileStore } from '../../store/profiles/profile-store.ts'
import { profileNamePattern } from '../../util/profile-name.ts'
import { ProfileTooLargeError } from '../../util/profile-size.ts'
import { ApiError } from '../http/api-errors.ts'
import type { AppEnv } from '../http/app-env.ts'
import { ProfileInfoSchema, ProfileListSchema, ProfileStateSchema } from '../http/profile-schemas.ts'
import { readJsonBody } from '../http/request-body.ts'
import { bodyErrors, errorResponse, jsonBody, jsonContent, pathParameter } from '../http/route-docs.ts'

export interface ProfileRoutesOptions {
  profiles: ProfileStore | undefined
  maxBodyBytes: number
  /** GET …/export answers values only when the server allows it (SEXTANT_PROFILE_EXPORT). */
  exportAllowed: boolean
}

const nameParameter = pathParameter('name', { type: 'string', pattern: profileNamePattern.source })
const badName = errorResponse('The name is not a profile name.')

/**
 * /v1/profiles: the saved browser states runs start from. Listing and
 * importing never answer a value (a cookie, a stored item); exporting does,
 * so it is off unless the server turns it on.
 */
export function profileRoutes({ profiles, maxBodyBytes, exportAllowed }: ProfileRoutesOptions): Hono<AppEnv> {
  const routes = new Hono<AppEnv>()
  const store = (): ProfileStore => {
    if (!profiles) throw new ApiError(404, 'not_found', 'This server keeps no profiles.')
    return profiles
  }
  const importMaxBytes = Math.max(maxBodyBytes, 2 * (profiles?.maxBytes ?? 0))

  routes.get(
    '/',
    describeRoute({
      summary: 'The saved profiles: names, sites, sizes and times, never values',
      responses: { '200': { description: 'The profiles, by name', content: jsonContent(ProfileListSchema) } },
    }),
    async (c) => c.json({ profiles: await store().list() }),
  )

  routes.put(
    '/:name',
    describeRoute({
      summary: 'Import a Playwright storage state as a profile (replacing one of that name)',
      parameters: [nameParameter],
      requestBody: jsonBody(ProfileStateSchema),
      responses: {
        '200': { description: 'The profile as listed', content: jsonContent(ProfileInfoSchema) },
        ...bodyErrors(importMaxBytes),
        '400': errorResponse('The body is not a storage state, or the name is not a profile name.'),
        '413': errorResponse(
          'The body, or the profile it holds (its JSON, as stored), is larger than SEXTANT_MAX_PROFILE_BYTES (5 MB by default); nothing was stored.',
        ),
        '409': errorResponse(
          'Profiles on a shared PostgreSQL store need SEXTANT_PROFILE_KEY, the same on every server (profile_key_required).',
        ),
      },
    }),
    async (c) => {
      const name = c.req.param('name')
      // A profile may be as large as the store keeps it; the body is allowed room for indentation.
      const state = await readJsonBody(c, ProfileStateSchema, importMaxBytes)
      await withName(() => store().put(name, state))
      return c.json(await store().info(name))
    },
  )

  routes.delete(
    '/:name',
    describeRoute({
      summary: 'Delete a profile',
      parameters: [nameParameter],
      responses: {
        '204': { description: 'Deleted' },
        '400': badName,
        '404': errorResponse('No such profile.'),
      },
    }),
    async (c) => {
      const name = c.req.param('name')
      if (!(await withName(() => store().delete(name)))) throw noProfile(name)
      return c.body(null, 204)
    },
  )

  routes.get(
    '/:name/export',
    describeRoute({
      summary: 'A profile’s values as a Playwright storage state (only with SEXTANT_PROFILE_EXPORT=1)',
      parameters: [nameParameter],
      responses: {
        '200': {
          description: 'The storage state, cookie values included',
          content: jsonContent(ProfileStateSchema),
        },
        '400': badName,
        '403': errorResponse('This server does not export profiles (SEXTANT_PROFILE_EXPORT is off).'),
        '404': errorResponse('No such profile.'),
      },
    }),
    async (c) => {
      if (!exportAllowed)
        throw new ApiError(
          403,
          'forbidden',
          'This server does not export profiles: set SEXTANT_PROFILE_EXPORT=1.',
        )
      const name = c.req.param('name')
      const state = await withName(() => store().load(name))
      if (!state) throw noProfile(name)
      c.header('Cache-Control', 'no-store')
      return c.json(state)
    },
  )
  return routes
}

function noProfile(name: string): ApiError {
  return new ApiError(404, 'not_found', `No profile named "${name}".`)
}

async function withName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof InvalidProfileNameError) throw new ApiError(400, 'invalid_request', error.message)
    if (error instanceof ProfileTooLargeError)
      throw new ApiError(413, 'payload_too_large', `${error.message} Nothing was stored.`)
    throw error
  }
}
