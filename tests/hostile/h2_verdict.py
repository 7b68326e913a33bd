"""What every HTTP/2 attack test asks of h2_attacks.py's report, whatever the path:
the server alive, a normal call answered within the recovery time, and the final call
byte for byte the pre-attack reply (5 items). h2_attacks_test.sh and h2_edge_test.sh
add their own bounds.

    from h2_verdict import recovered
    problems = recovered(report, who="the server")   # [] when all holds
"""


def recovered(report, who):
    after = report["after"]
    if not after["alive"]:
        return [f"{who} died"]
    problems = []
    if after["recovery"]["first_ok_after_s"] is None:
        problems.append("no normal call succeeded within the recovery time after the attack")
    if after.get("final_probe") != "ok" or after.get("final_items") != 5:
        problems.append(f"final call: {after.get('final_probe')}, {after.get('final_items')} items "
                        "(want ok, the pre-attack bytes, 5)")
    if report["probes"]["wrong_reply"]:
        problems.append(f"{report['probes']['wrong_reply']} probe(s) got a wrong reply")
    return problems
