# SPDX-License-Identifier: GPL-2.0
"""pyroute2-htb.py DEV - pyroute2's own htb example, on DEV.

The example is read at run time from the installed pyroute2 (the docstring
of pyroute2.netlink.rtnl.tcmsg.sched_htb, which `ip.tc("help", "htb")`
shows), not kept in this tree. It runs statement by statement in the
current network namespace with the names it expects: `ip` (an IPRoute),
`socket`, and `eth0` (its `eth0 = 2` replaced by DEV's index; `eht0`, its
spelling in one call, the same). tests/vm/suite-standin.sh runs it through
build/python/python3 (lines/fetch-python) against sch_htb and against
htbx in its place.

Prints "ok N LINE" or "error N LINE: EXCEPTION" for each statement, N its
line in the example; exits 1 when one failed.
"""

import ast
import socket
import sys
import textwrap

from pyroute2 import IPRoute
from pyroute2.netlink.rtnl.tcmsg import sched_htb


def main():
    """Run the example on the device named in argv[1]."""
    dev = sys.argv[1]
    code = textwrap.dedent(sched_htb.__doc__.split("::\n", 1)[1])
    ip = IPRoute()
    index = ip.link_lookup(ifname=dev)[0]
    names = {"ip": ip, "socket": socket, "eth0": index, "eht0": index}
    failed = 0
    for stmt in ast.parse(code).body:
        text = ast.get_source_segment(code, stmt).splitlines()[0]
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and
                getattr(stmt.targets[0], "id", None) == "eth0"):
            print("ok %d %s (eth0 is %s)" % (stmt.lineno, text, dev))
            continue
        try:
            exec(compile(ast.Module([stmt], []), "sched_htb example", "exec"), names)
        except Exception as err:  # pylint: disable=broad-except
            print("error %d %s: %r" % (stmt.lineno, text, err))
            failed += 1
        else:
            print("ok %d %s" % (stmt.lineno, text))
    ip.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
