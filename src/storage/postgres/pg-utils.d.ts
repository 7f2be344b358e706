// node-postgres's own value rendering (lib/utils.js), which @types/pg does not declare: what the
// driver sends for a parameter (arrays as array literals, dates and objects as text), and libpq's
// quoting of a literal.
declare module "pg/lib/utils.js" {
  const utils: {
    prepareValue(value: unknown): string | Buffer | null;
    escapeLiteral(text: string): string;
  };
  export default utils;
}
