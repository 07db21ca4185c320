"""Reading run folders of any method: the HTML report (`verstehen report`) and the list of
past runs (`verstehen runs`)."""
