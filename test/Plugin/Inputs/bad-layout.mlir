// expected-error @+1 {{stride must be non-zero}}
func.func private @f(!axe.tensor<4xf32, global, #axe.layout<(4) : (0@lane)>>)
