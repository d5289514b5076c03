package none
