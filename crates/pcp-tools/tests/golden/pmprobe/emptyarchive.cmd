-a

