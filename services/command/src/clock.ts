/** The service's clock; the domain receives time from it, never reads one. */
export interface Clock {
  now(): string;
}
