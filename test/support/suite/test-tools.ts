import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The Debian tools some tests need beyond Node and Chromium, one entry each: `./dev test` installs the
 * missing ones as root (its list of packages must match `debianPackage` here), the suite's report names
 * the ones still missing beside the tests they cost, and under CI a missing one fails the run.
 */
export interface TestTool {
  name: string
  debianPackage: string
  /** Which tests skip without it, as the report says it. */
  neededBy: string
  present: () => boolean
}

export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin')
}

/** Whether `command` runs at all (spawn fails with ENOENT when it is not on PATH). */
function runs(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 }).error === undefined
}

export const testTools = {
  postgres: {
    name: 'PostgreSQL server binaries',
    debianPackage: 'postgresql',
    neededBy: 'the PostgreSQL store, fleet, queue and lease tests',
    present: () => findPostgresBin() !== undefined,
  },
  xvfb: {
    name: 'Xvfb',
    debianPackage: 'xvfb',
    neededBy: 'the SEXTANT_HEADED=virtual test (a headed browser in a display of its own)',
    present: () => runs('Xvfb', ['-help']),
  },
  faketime: {
    name: 'faketime',
    debianPackage: 'faketime',
    neededBy: 'the skewed-clock server test',
    present: () => spawnSync('faketime', ['-f', '-30s', 'true'], { stdio: 'ignore' }).status === 0,
  },
  wordpress: {
    name: "Debian's WordPress",
    debianPackage: 'wordpress',
    neededBy: 'the WordPress and block editor runs (test/server/apps/)',
    present: () => existsSync('/usr/share/wordpress/wp-settings.php'),
  },
  mariadb: {
    name: 'MariaDB server binaries',
    debianPackage: 'mariadb-server-core',
    neededBy: "the WordPress runs' throwaway database (test/server/apps/)",
    present: () => existsSync('/usr/sbin/mariadbd') && runs('mariadb-install-db', ['--help']),
  },
  mariadbClient: {
    name: 'the MariaDB client',
    debianPackage: 'mariadb-client-core',
    neededBy: "the WordPress runs' database set-up (test/server/apps/)",
    present: () => runs('mariadb', ['--version']),
  },
  php: {
    name: "PHP's command line and its built-in web server",
    debianPackage: 'php-cli',
    neededBy: 'the WordPress runs (test/server/apps/)',
    present: () => runs('php', ['--version']),
  },
  mediawiki: {
    name: "Debian's MediaWiki",
    debianPackage: 'mediawiki',
    neededBy: 'the MediaWiki edit run (test/server/apps/)',
    present: () => existsSync('/usr/share/mediawiki/maintenance/install.php'),
  },
  phpSqlite: {
    name: "PHP's SQLite driver",
    debianPackage: 'php-sqlite3',
    neededBy: "the MediaWiki edit run's database (test/server/apps/)",
    present: () => spawnSync('php', ['-r', 'exit(extension_loaded("pdo_sqlite") ? 0 : 1);']).status === 0,
  },
} satisfies Record<string, TestTool>

export type TestToolName = keyof typeof testTools

/** The tools missing on this machine. */
export function missingTestTools(): TestTool[] {
  return Object.values(testTools).filter((tool) => !tool.present())
}

/** One line per missing tool: what it is, how to install it, and what skips (or, under CI, fails) without it. */
export function missingToolLine(tool: TestTool, outcome: 'SKIPPED' | 'needs it' = 'SKIPPED'): string {
  return `${tool.name} not installed (apt-get install -y ${tool.debianPackage}): ${tool.neededBy} ${outcome}`
}
