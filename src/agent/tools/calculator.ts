// The `calculator` tool: arithmetic read by a small recursive-descent parser, never eval.
// Every failure throws an Error whose message tells the model what to fix.
import { z } from "zod";
import type { Tool } from "../../contracts/types.js";

const MAX_EXPRESSION_LENGTH = 500;
const ALLOWED = "only numbers, + - * / % ^ ** and parentheses are allowed";

interface Token {
  readonly kind: "number" | "operator";
  /** The text as written. */
  readonly text: string;
  readonly position: number;
}

const NUMBER_PATTERN = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const OPERATORS = ["**", "+", "-", "*", "/", "%", "^", "(", ")"] as const;

function parseError(expression: string, detail: string): Error {
  return new Error(`Cannot parse "${expression}": ${detail}`);
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let position = 0;
  while (position < expression.length) {
    const char = expression[position]!;
    if (/\s/.test(char)) {
      position += 1;
      continue;
    }
    NUMBER_PATTERN.lastIndex = position;
    const number = NUMBER_PATTERN.exec(expression);
    if (number) {
      tokens.push({ kind: "number", text: number[0], position });
      position += number[0].length;
      continue;
    }
    const operator = OPERATORS.find((candidate) => expression.startsWith(candidate, position));
    if (!operator) throw parseError(expression, `unexpected "${char}" at position ${position} (${ALLOWED})`);
    tokens.push({ kind: "operator", text: operator, position });
    position += operator.length;
  }
  return tokens;
}

/**
 * Grammar (lowest precedence first; `^` and `**` bind tighter than unary minus and are
 * right-associative, so -2^2 = -4 and 2^3^2 = 512):
 *   sum     := product (("+" | "-") product)*
 *   product := unary (("*" | "/" | "%") unary)*
 *   unary   := ("+" | "-") unary | power
 *   power   := primary (("^" | "**") unary)?
 *   primary := number | "(" sum ")"
 */
class Parser {
  private index = 0;

  constructor(
    private readonly expression: string,
    private readonly tokens: readonly Token[],
  ) {}

  parse(): number {
    const value = this.sum();
    const extra = this.tokens[this.index];
    if (extra) throw this.unexpected(extra);
    return value;
  }

  private sum(): number {
    let value = this.product();
    for (let operator = this.takeOperator("+", "-"); operator; operator = this.takeOperator("+", "-")) {
      const right = this.product();
      value = operator === "+" ? value + right : value - right;
    }
    return value;
  }

  private product(): number {
    let value = this.unary();
    for (let operator = this.takeOperator("*", "/", "%"); operator; operator = this.takeOperator("*", "/", "%")) {
      const right = this.unary();
      if (right === 0 && operator !== "*") {
        throw new Error(`${operator === "/" ? "Division" : "Modulo"} by zero in "${this.expression}": a divisor evaluates to 0`);
      }
      value = operator === "*" ? value * right : operator === "/" ? value / right : value % right;
    }
    return value;
  }

  private unary(): number {
    const sign = this.takeOperator("+", "-");
    if (sign) return sign === "-" ? -this.unary() : this.unary();
    return this.power();
  }

  private power(): number {
    const base = this.primary();
    return this.takeOperator("^", "**") ? base ** this.unary() : base;
  }

  private primary(): number {
    const token = this.tokens[this.index];
    if (!token) throw parseError(this.expression, 'it ends too early (a number or "(" is missing at the end)');
    if (token.kind === "number") {
      this.index += 1;
      return Number(token.text);
    }
    if (token.text !== "(") throw this.unexpected(token);
    this.index += 1;
    const value = this.sum();
    if (!this.takeOperator(")")) {
      throw parseError(this.expression, `the "(" at position ${token.position} is never closed`);
    }
    return value;
  }

  private takeOperator(...accepted: string[]): string | undefined {
    const token = this.tokens[this.index];
    if (token?.kind !== "operator" || !accepted.includes(token.text)) return undefined;
    this.index += 1;
    return token.text;
  }

  private unexpected(token: Token): Error {
    return parseError(this.expression, `unexpected "${token.text}" at position ${token.position}`);
  }
}

/** Rounds away binary float noise (0.1 + 0.2 gives 0.3) and never prints -0. */
function formatNumber(value: number): string {
  // A whole number of at most 15 digits is its own 15-digit rounding (and String(-0) is "0"): no toPrecision needed.
  if (Number.isInteger(value) && Math.abs(value) < 1e15) return String(value);
  const rounded = Number(value.toPrecision(15));
  return Object.is(rounded, -0) ? "0" : String(rounded);
}

/** Evaluates an arithmetic expression; throws an Error that says what is wrong. */
function evaluate(expression: string): string {
  if (expression.trim() === "") throw new Error(`The expression is empty: give arithmetic such as "(3 + 4) * 5"`);
  const value = new Parser(expression, tokenize(expression)).parse();
  if (Number.isNaN(value)) throw new Error(`The result of "${expression}" is not a real number`);
  if (!Number.isFinite(value)) throw new Error(`The result of "${expression}" is too large to represent`);
  return formatNumber(value);
}

const CalculatorArgs = z.object({
  expression: z
    .string()
    .max(MAX_EXPRESSION_LENGTH, `expects at most ${MAX_EXPRESSION_LENGTH} characters`)
    .describe('Arithmetic such as "(3 + 4) * 5" or "2 ^ 10": numbers, + - * / % ^ ** and parentheses'),
});

export const calculatorTool: Tool<{ expression: string }> = {
  name: "calculator",
  description: "Evaluates an arithmetic expression exactly and returns the number. Use it for any calculation.",
  schema: CalculatorArgs,
  effect: "read",
  async execute({ expression }) {
    return evaluate(expression);
  },
};
