/** The three kinds of store a tenant's bytes can live in (contract §11). */
export const PROVIDERS = ['shared', 'dedicated', 'customer'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Spec "Storage migration (administrator only)": the supported paths, source to target. */
const SUPPORTED_PATHS = new Set([
  'shared>dedicated',
  'shared>customer',
  'dedicated>customer',
  'customer>dedicated',
  'dedicated>shared',
]);

export function isSupportedPath(source: ProviderName, target: ProviderName): boolean {
  return SUPPORTED_PATHS.has(`${source}>${target}`);
}

export function supportedTargetsFrom(source: ProviderName): ProviderName[] {
  return PROVIDERS.filter((target) => isSupportedPath(source, target));
}
