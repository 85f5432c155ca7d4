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
  maxWorkers: 2,
};
