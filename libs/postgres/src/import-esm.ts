import * as vm from 'node:vm';

/**
 * Loads an ESM-only package from this CommonJS code base with a real `import()`.
 * Under jest (no --experimental-vm-modules) `import()` inside the test sandbox
 * throws ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING*, so we fall back to Node's own
 * loader via a function compiled in the main context.
 */
export async function importEsm<T>(specifier: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING')) throw error;
    return (await mainContextImport()(specifier)) as T;
  }
}

let cachedMainContextImport: ((specifier: string) => Promise<unknown>) | undefined;

function mainContextImport(): (specifier: string) => Promise<unknown> {
  cachedMainContextImport ??= vm.runInThisContext('(specifier) => import(specifier)', {
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  }) as (specifier: string) => Promise<unknown>;
  return cachedMainContextImport;
}
