// The layers of shared/design.md, checked by `npm run lint` (dependency-cruiser):
//   faces (api/, frontend/, admin/) -> domain -> db/, cache/ ; never back up.
// A face turns a request into (actor, input), calls an operation and shapes the answer: it never reaches
// the database or the cache itself. services.ts, app.ts and cli.ts are the composition roots that wire
// the layers together, so they may import anything.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'face-not-to-db-or-cache',
      comment:
        'A face (API, public site, admin) calls domain operations; it never imports src/db or src/cache.',
      severity: 'error',
      from: { path: '^src/(api|frontend|admin)/' },
      // A type (TagStamp, say) is no reach into the cache: it is gone when compiled.
      to: { path: '^src/(db|cache)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-not-to-faces',
      comment: 'The domain knows nothing of HTTP or of the faces that call it.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^src/(api|frontend|admin|http|setup)/' },
    },
    {
      name: 'setup-not-to-faces',
      comment: 'Install and sample content orchestrate domain operations; they never call a face.',
      severity: 'error',
      from: { path: '^src/setup/' },
      to: { path: '^src/(api|frontend|admin|http|db|cache)/' },
    },
    {
      name: 'http-not-to-faces-db-cache',
      comment: 'src/http is shared by every face: no face-specific code, no database, no cache.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/(api|frontend|admin|db|cache)/' },
    },
    {
      name: 'faces-independent',
      comment: 'Faces do not reach into each other (shared HTTP concerns live in src/http).',
      severity: 'error',
      from: { path: '^src/(api|frontend|admin)/([^/]+)' },
      to: { path: '^src/(api|frontend|admin)/', pathNot: '^src/$1/' },
    },
    {
      name: 'db-is-the-bottom',
      comment: 'The database layer knows nothing above it.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(domain|cache|api|frontend|admin|http|setup)/' },
    },
    {
      name: 'cache-below-domain',
      comment:
        'The cache layer is generic: it does not know the domain (types like Clock excepted) or the faces.',
      severity: 'error',
      from: { path: '^src/cache/' },
      to: { path: '^src/(domain|api|frontend|admin|http|setup|db)/', pathNot: '^src/domain/clock\\.ts$' },
    },
    {
      name: 'storage-is-a-driver',
      comment:
        'src/storage holds the media storage drivers: it stores bytes and knows nothing of the domain, the database or the faces.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^src/', pathNot: '^src/(storage|lib)/' },
    },
    {
      name: 'lib-is-generic',
      comment: 'src/lib holds generic helpers (a bounded memo…) that know nothing of Folio.',
      severity: 'error',
      from: { path: '^src/lib/' },
      to: { path: '^src/', pathNot: '^src/lib/' },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      // Type-only imports vanish when compiled, so they cannot form a cycle at run time.
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
