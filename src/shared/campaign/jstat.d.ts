// Types for the part of jStat (npm `jstat`, no bundled types) that the study statistics use.
// The package is UMD: Node's ESM loader sees only its default export (module.exports).
declare module 'jstat' {
  const jstat: { jStat: JStat };
  export default jstat;
  interface JStat {
    studentt: {
      /** P(T ≤ x) for Student's t with `dof` degrees of freedom (any positive real). */
      cdf(x: number, dof: number): number;
      /** The p-quantile of Student's t with `dof` degrees of freedom. */
      inv(p: number, dof: number): number;
    };
  }
}
