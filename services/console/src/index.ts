export { type ConsoleBundle, buildConsole, consoleBundle, registerConsole } from './console-plugin';
