/**
 * The layers of src/ and the rules between them (docs/architecture.md, "Layers"). `npm run lint`
 * runs this; a violation fails CI.
 *
 *   app.ts · container.ts · main.ts · modules.ts      composition (top)
 *   modules/<name>/                                    features, one folder each
 *   platform/                                          the module contract
 *   http/ · jobs/ · events/ · providers/               infrastructure
 *   db/                                                database access
 *   lib/ · config/                                     plain building blocks (bottom)
 */
const LAYERS = {
  base: '^src/(lib|config)/',
  db: '^src/db/',
  infra: '^src/(http|jobs|events|providers)/',
  platform: '^src/platform/',
  modules: '^src/modules/',
};

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles make modules impossible to read or test alone.', from: {}, to: { circular: true } },
    {
      name: 'base-is-bottom',
      severity: 'error',
      comment: 'lib/ and config/ import nothing of the project above them.',
      from: { path: LAYERS.base },
      to: { path: '^src/', pathNot: LAYERS.base },
    },
    {
      name: 'db-below-infrastructure',
      severity: 'error',
      from: { path: LAYERS.db },
      to: { path: '^src/', pathNot: `${LAYERS.base}|${LAYERS.db}` },
    },
    {
      name: 'infrastructure-below-modules',
      severity: 'error',
      comment: 'http/, jobs/, events/ and providers/ serve modules; they never import one (take a port instead).',
      from: { path: LAYERS.infra },
      to: { path: '^src/(platform|modules)/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'platform-below-modules',
      severity: 'error',
      from: { path: LAYERS.platform },
      to: { path: '^src/modules/|^src/[^/]+\\.ts$' },
    },
    {
      name: 'modules-below-composition',
      severity: 'error',
      comment: 'Modules never import the composition root (app.ts, container.ts, main.ts, modules.ts).',
      from: { path: LAYERS.modules },
      to: { path: '^src/[^/]+\\.ts$' },
    },
    {
      name: 'modules-meet-at-their-entry',
      severity: 'error',
      comment:
        "A module uses another module only through that module's public entry (index.ts: its service types and events), never its repository or internals.",
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-orphans',
      severity: 'warn',
      // <module>.events.ts only declare event data merged into the catalogue's EventDataMap: nothing imports them.
      from: { orphan: true, pathNot: ['\\.d\\.ts$', '\\.events\\.ts$', '-thread\\.ts$', '-child\\.ts$', '^src/db/migrations/'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
