import type { Sealer } from '@memotrace/memory-log';
import { TOKENS } from '@memotrace/runtime';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { CommandHandler } from './command-handler';

export const COMMAND_HANDLER: ServiceIdentifier<CommandHandler> = Symbol.for('memotrace.commandHandler');
/** How the command side seals a batch, when not sealBatch under the key store (the sealing benchmark's unsealed service). */
export const SEALER: ServiceIdentifier<Sealer> = Symbol.for('memotrace.sealer');

export const commandModule = new ContainerModule(({ bind }) => {
  bind(COMMAND_HANDLER)
    .toDynamicValue(
      (ctx) =>
        new CommandHandler(
          ctx.get(TOKENS.store),
          ctx.get(TOKENS.clock),
          ctx.get(TOKENS.keyStore),
          ctx.get(SEALER, { optional: true }),
          ctx.get(TOKENS.config).stateCacheRecords,
        ),
    )
    .inSingletonScope();
});
