import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser (override with CHROMIUM_PATH). */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Flags for a machine without internet: no background traffic, no component or sync services,
 * no QUIC probing, no GPU; no sandbox because tests run as root in CI.
 */
const CLOSED_NETWORK_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/**
 * Throws, loudly, when Chromium is not installed: a browser test must fail, never pass or skip
 * quietly, where the browser is missing.
 */
export function requireChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return;
  throw new Error(
    [
      '',
      '======================================================================',
      `  Chromium is missing: ${CHROMIUM_PATH} does not exist.`,
      '  The dashboard browser test needs it. Install it with:',
      '      sudo apt-get install -y chromium        (Debian/Ubuntu)',
      '  or point CHROMIUM_PATH at a Chromium or Chrome binary.',
      '  (.ci/run installs it before running the tests.)',
      '======================================================================',
    ].join('\n'),
  );
}

/** A headless Chromium with a fresh profile, closed and removed by `close()`. */
export interface HeadlessChromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Starts Debian's Chromium through playwright-core (which downloads no browser of its own), with
 * {@link CLOSED_NETWORK_FLAGS} and a fresh user-data-dir.
 *
 * @example
 * const browser = await launchChromium();
 * const page = await browser.context.newPage();
 * await browser.close();
 */
export async function launchChromium(
  viewport = { width: 1400, height: 900 },
): Promise<HeadlessChromium> {
  requireChromium();
  const profile = mkdtempSync(join(tmpdir(), 'kube-rx-chromium-'));
  let context: BrowserContext;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CLOSED_NETWORK_FLAGS,
      viewport,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
