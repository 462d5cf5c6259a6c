package parser

// NewFile starts line numbers again at 1: the lines that follow come from
// another file at the same path (a live log rotated, re-created, or
// truncated and rewritten under its follower). Call Flush first, so a held
// record keeps the number it had.
func (p *Parser) NewFile() { p.lineNo, p.skimSt.refused = 0, 0 }
