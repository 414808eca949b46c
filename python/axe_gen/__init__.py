"""Kernel generators that write Axe IR through a typed emitter (`axe_gen.emitter`)."""
