/** @type {import('jest').Config} */
export default {
  testEnvironment: '<rootDir>/spec/support/nodeEnvironment.mjs',
  roots: ['<rootDir>/spec', '<rootDir>/examples'],
  testMatch: ['**/*.spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testTimeout: 20000,
  // The run's own temporary directory, and the check that the specs leave nothing in it.
  globalSetup: '<rootDir>/spec/support/tempDirSetup.mjs',
  globalTeardown: '<rootDir>/spec/support/tempDirTeardown.mjs',
  maxWorkers: 2,
};
