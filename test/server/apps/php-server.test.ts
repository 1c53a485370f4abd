import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { startPhpServer } from '../../support/apps/php-server.ts'
import { testTools } from '../../support/suite/test-tools.ts'
import { until } from '../../support/until.ts'

/** The processes whose command line serves `address` (a PHP server's parent and its workers). */
function serving(address: string): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
      return args.includes(address) ? [Number(entry)] : []
    } catch {
      return [] // gone since the listing
    }
  })
}

test.skipIf(!testTools.php.present())(
  "stopping an application's PHP server ends its forked workers too, not only their parent",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-php-'))
    try {
      writeFileSync(join(dir, 'index.php'), '<?php echo SEXTANT_GREETING;')
      const server = await startPhpServer({
        docroot: dir,
        dir,
        constants: { SEXTANT_GREETING: 'hello' },
        ready: '/',
      })
      // The router's constant reaches the page: the application is configured through it.
      expect(await (await fetch(`${server.url}/`)).text()).toBe('hello')
      const address = server.url.replace('http://', '')
      expect(serving(address).length).toBeGreaterThan(1)
      await server.stop()
      await until(() => serving(address).length === 0, { what: 'every PHP process to end' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  },
)
