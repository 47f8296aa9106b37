import { TOKENS } from '@memotrace/runtime';
import { ContainerModule, type ServiceIdentifier } from 'inversify';
import { CommandHandler } from './command-handler';

export const COMMAND_HANDLER: ServiceIdentifier<CommandHandler> = Symbol.for('memotrace.commandHandler');

export const commandModule = new ContainerModule(({ bind }) => {
  bind(COMMAND_HANDLER)
    .toDynamicValue((ctx) => new CommandHandler(ctx.get(TOKENS.store), ctx.get(TOKENS.clock), ctx.get(TOKENS.keyStore)))
    .inSingletonScope();
});
