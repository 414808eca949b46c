"test.op"() {l = #axe.layout<(0) : (1)>} : () -> ()
// -----
"test.op"() {l = #axe.layout<(4) : (0@lane)>} : () -> ()
// -----
"test.op"() {l = #axe.layout<(4 : (1)>} : () -> ()
// -----
"test.op"() {l = #axe.layout<(4) : (1) ?>} : () -> ()
// -----
"test.op"() {l = #axe.layout<(1180591620717411303424) : (1)>} : () -> ()
