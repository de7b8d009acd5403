// Reproducers: placeholder until written.
export function repro(sdk, request) {
  throw new Error('not yet');
}
