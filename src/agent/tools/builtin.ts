// The tools every run has, whatever the surface.
import type { Tool } from "../../contracts/types.js";
import { calculatorTool } from "./calculator.js";
import { currentTimeTool } from "./current-time.js";

export const builtinTools: readonly Tool[] = [calculatorTool, currentTimeTool];
