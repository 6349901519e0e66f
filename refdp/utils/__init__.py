"""Parts shared by every package of refdp.

Nothing here belongs to one paper: parameter validation and the constraints
declared with it, and (as they move here) floating-point constants, exact
arithmetic, precision contexts, random-stream normalisation and the sampling,
partitioning and solver helpers that more than one package uses. A module of one
package never imports a private (underscore) module of another; what two
packages share lives here.
"""
